// The size promise holds in lint: a planted long function or long file
// fails, and every file the debt list lets past still needs its place (a
// file split leaves the list, so it only shrinks).

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';
import { MAX_FILE_LINES, MAX_FUNCTION_LINES, SIZE_DEBT, SIZE_RULES } from './lib/size-rules.mjs';

const root = join(import.meta.dirname, '..');
const eslint = new ESLint({ cwd: root });
/** The size rules applied to every file, the exemptions aside: what a listed file would meet once off the list. */
const strict = new ESLint({ cwd: root, overrideConfig: [{ files: ['**/*.{ts,tsx}'], rules: SIZE_RULES }] });

const sizeErrors = async (linter: ESLint, filePath: string, code: string): Promise<string[]> => {
  const [result] = await linter.lintText(code, { filePath });
  return (result?.messages ?? []).filter((m) => m.ruleId === 'max-lines' || m.ruleId === 'max-lines-per-function').map((m) => m.message);
};

const longFunction = (lines: number) =>
  `export function long(): number {\n${'  let x = 1;\n'.repeat(lines - 3)}  return 1;\n}\n`.replace(/let x = 1;/g, 'void 0;');

describe('the size promise', () => {
  it(`fails a function past ${MAX_FUNCTION_LINES} lines and a file past ${MAX_FILE_LINES}, in src/ and app/, and passes one within`, async () => {
    expect((await sizeErrors(eslint, join(root, 'src/assess/x.ts'), longFunction(MAX_FUNCTION_LINES + 1))).join('\n')).toMatch(/too many lines \(121\)/);
    expect((await sizeErrors(eslint, join(root, 'app/renderer/src/views/x.tsx'), longFunction(MAX_FUNCTION_LINES + 1))).join('\n')).toMatch(/too many lines/);
    expect(await sizeErrors(eslint, join(root, 'src/assess/x.ts'), longFunction(MAX_FUNCTION_LINES))).toEqual([]);
    const longFile = Array.from({ length: MAX_FILE_LINES + 1 }, (_, index) => `export const x${index} = ${index};`).join('\n');
    expect((await sizeErrors(eslint, join(root, 'src/model/x.ts'), longFile)).join('\n')).toMatch(/File has too many lines/);
  });

  it('lets past only files that still break it (a file split leaves the list)', async () => {
    for (const file of SIZE_DEBT) {
      const errors = await sizeErrors(strict, join(root, file), readFileSync(join(root, file), 'utf8'));
      expect(errors.length, `${file} no longer breaks the size promise: take it off SIZE_DEBT`).toBeGreaterThan(0);
    }
  });
});
