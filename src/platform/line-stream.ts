// Lines out of a byte stream, bounded: a peer that never sends a newline
// cannot make this process hold more than `maxChars` of it. Used where the
// contract crosses a process boundary (src/contract/line-transport.ts).

import type { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';

/**
 * Calls `onLine` for each newline-terminated line of `stream` (without the
 * newline), in order. A line longer than `maxChars` is skipped whole (its
 * start is dropped as it arrives, and what follows up to the next newline),
 * and `onOverlong` hears of it. `onEnd` runs once the stream ends or fails.
 */
export function readLines(stream: Readable, maxChars: number, handlers: { onLine: (line: string) => void; onOverlong?: () => void; onEnd?: () => void }): void {
  const decoder = new StringDecoder('utf8');
  let pending = '';
  let skipping = false;
  const take = (text: string) => {
    let rest = text;
    for (let newline = rest.indexOf('\n'); newline !== -1; newline = rest.indexOf('\n')) {
      const line = pending + rest.slice(0, newline);
      rest = rest.slice(newline + 1);
      pending = '';
      if (skipping) skipping = false;
      else if (line.length > maxChars) handlers.onOverlong?.();
      else handlers.onLine(line.endsWith('\r') ? line.slice(0, -1) : line);
    }
    if (skipping) return;
    pending += rest;
    if (pending.length > maxChars) {
      pending = '';
      skipping = true;
      handlers.onOverlong?.();
    }
  };
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    handlers.onEnd?.();
  };
  stream.on('data', (chunk: Buffer | string) => take(typeof chunk === 'string' ? chunk : decoder.write(chunk)));
  stream.once('end', end);
  stream.once('close', end);
  stream.once('error', end);
}
