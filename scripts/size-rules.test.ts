// The size promise holds in lint: a planted long function or long file
// fails, and the one file let past the file limit still needs it.

import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';
import { FLAG_FUNCTION_LINES, LONG_FILES_BY_DESIGN, MAX_FILE_LINES, MAX_FUNCTION_LINES, SIZE_RULES } from './lib/size-rules.mjs';
import { longFunctions, longFunctionsText } from './long-functions.mjs';

const root = join(import.meta.dirname, '..');
const eslint = new ESLint({ cwd: root });
/** The size rules applied to every file, the exemption aside: what the catalogue would meet without it. */
const strict = new ESLint({ cwd: root, overrideConfig: [{ files: ['**/*.{ts,tsx}'], rules: SIZE_RULES }] });

const sizeErrors = async (linter: ESLint, filePath: string, code: string): Promise<string[]> => {
  const [result] = await linter.lintText(code, { filePath });
  return (result?.messages ?? []).filter((m) => m.ruleId === 'max-lines' || m.ruleId === 'max-lines-per-function').map((m) => m.message);
};

const longFunction = (lines: number) => `export function long(): number {\n${'  void 0;\n'.repeat(lines - 3)}  return 1;\n}\n`;

describe('the size promise', () => {
  it(`fails a function past ${MAX_FUNCTION_LINES} lines and a file past ${MAX_FILE_LINES}, in src/ and app/, and passes one within`, async () => {
    expect((await sizeErrors(eslint, join(root, 'src/assess/x.ts'), longFunction(MAX_FUNCTION_LINES + 1))).join('\n')).toMatch(/too many lines \(121\)/);
    expect((await sizeErrors(eslint, join(root, 'app/renderer/src/views/x.tsx'), longFunction(MAX_FUNCTION_LINES + 1))).join('\n')).toMatch(/too many lines/);
    expect(await sizeErrors(eslint, join(root, 'src/assess/x.ts'), longFunction(MAX_FUNCTION_LINES))).toEqual([]);
    const longFile = Array.from({ length: MAX_FILE_LINES + 1 }, (_, index) => `export const x${index} = ${index};`).join('\n');
    expect((await sizeErrors(eslint, join(root, 'src/model/x.ts'), longFile)).join('\n')).toMatch(/File has too many lines/);
  });

  it.each(LONG_FILES_BY_DESIGN)('%s still needs its exemption from the file limit (else take it off the list)', async (file) => {
    const errors = await sizeErrors(strict, join(root, file), readFileSync(join(root, file), 'utf8'));
    expect(errors.join('\n')).toMatch(/File has too many lines/);
  });
});

describe('functions past about 80 lines', () => {
  it(`are flagged by file and line, longest first, while lint still passes them; tests and the functions within ${FLAG_FUNCTION_LINES} are not`, async () => {
    const tree = mkdtempSync(join(tmpdir(), 'pipefill-sizes-'));
    try {
      mkdirSync(join(tree, 'src', 'assess'), { recursive: true });
      mkdirSync(join(tree, 'app', 'renderer'), { recursive: true });
      writeFileSync(join(tree, 'src', 'assess', 'grown.ts'), `// why\n${longFunction(FLAG_FUNCTION_LINES + 1)}`);
      writeFileSync(join(tree, 'app', 'renderer', 'view.tsx'), longFunction(FLAG_FUNCTION_LINES + 20));
      writeFileSync(join(tree, 'src', 'assess', 'within.ts'), longFunction(FLAG_FUNCTION_LINES));
      writeFileSync(join(tree, 'src', 'assess', 'grown.test.ts'), longFunction(FLAG_FUNCTION_LINES + 30));
      const found = await longFunctions(tree);
      expect(found).toEqual([
        { file: 'app/renderer/view.tsx', line: 1, lines: FLAG_FUNCTION_LINES + 20 },
        { file: 'src/assess/grown.ts', line: 2, lines: FLAG_FUNCTION_LINES + 1 },
      ]);
      expect(longFunctionsText(found)).toMatch(/^2 functions are past 80 lines \(flagged, not failed: lint fails at 120\)/);
      expect(await sizeErrors(eslint, join(root, 'src/assess/x.ts'), longFunction(FLAG_FUNCTION_LINES + 1))).toEqual([]);
    } finally {
      rmSync(tree, { recursive: true, force: true });
    }
  });
});
