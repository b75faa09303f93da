import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { readLines } from './line-stream.js';

function collect(chunks: (string | Buffer)[], maxChars: number): Promise<{ lines: string[]; overlong: number }> {
  const stream = new PassThrough();
  const lines: string[] = [];
  let overlong = 0;
  return new Promise((resolve) => {
    readLines(stream, maxChars, { onLine: (line) => lines.push(line), onOverlong: () => overlong++, onEnd: () => resolve({ lines, overlong }) });
    for (const chunk of chunks) stream.write(chunk);
    stream.end();
  });
}

describe('readLines', () => {
  it('splits lines across chunks, CRLF or LF, and keeps a character split between chunks whole', async () => {
    const euro = Buffer.from('€\n');
    await expect(collect(['ab', 'c\nde\r\n', 'f\n', euro.subarray(0, 1), euro.subarray(1)], 100)).resolves.toEqual({
      lines: ['abc', 'de', 'f', '€'],
      overlong: 0,
    });
  });

  it('skips a line longer than the bound whole, even one that never ends in a chunk, and goes on after it', async () => {
    await expect(collect(['ok\n', 'x'.repeat(6), 'y'.repeat(6), 'zz\nnext\n', 'tooooooooooooong\n', 'last\n'], 10)).resolves.toEqual({
      lines: ['ok', 'next', 'last'],
      overlong: 2,
    });
  });

  it('drops an unfinished last line', async () => {
    await expect(collect(['a\nb'], 10)).resolves.toEqual({ lines: ['a'], overlong: 0 });
  });
});
