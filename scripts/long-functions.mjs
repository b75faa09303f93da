// Functions past FLAG_FUNCTION_LINES (about 80) in src/ and app/: flagged,
// not failed. Lint fails at MAX_FUNCTION_LINES (120); a function that has
// grown past 80 is the one to split before it gets there. `npm test` prints
// the list after lint; `npm run sizes` prints it alone. Parse-only (no type
// information), so it takes seconds, not lint's minute.

import { join } from 'node:path';
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';
import { FLAG_FUNCTION_LINES, MAX_FUNCTION_LINES } from './lib/size-rules.mjs';

const SOURCES = ['src/**/*.ts', 'app/**/*.{ts,tsx,cts}'];
const NOT_SOURCES = ['**/*.test.ts', 'src/test-support/**', '**/*.d.ts'];

/** Every source function past `flagAt` lines: its file (from `cwd`), first line and length, longest first. */
export async function longFunctions(cwd, flagAt = FLAG_FUNCTION_LINES) {
  const eslint = new ESLint({
    cwd,
    overrideConfigFile: true,
    overrideConfig: [
      { files: SOURCES, ignores: NOT_SOURCES, languageOptions: { parser: tseslint.parser }, rules: { 'max-lines-per-function': ['warn', { max: flagAt }] } },
    ],
  });
  const results = await eslint.lintFiles(SOURCES);
  return results
    .flatMap((result) =>
      result.messages
        .filter((message) => message.ruleId === 'max-lines-per-function')
        .map((message) => ({
          file: result.filePath.slice(cwd.length + 1),
          line: message.line,
          lines: Number(/\((\d+)\)/.exec(message.message)?.[1] ?? NaN),
        })),
    )
    .sort((a, b) => b.lines - a.lines || a.file.localeCompare(b.file));
}

/** The list as npm test prints it. */
export function longFunctionsText(found, flagAt = FLAG_FUNCTION_LINES) {
  if (found.length === 0) return `No function in src/ or app/ is past ${flagAt} lines.`;
  return [
    `${found.length} function${found.length === 1 ? ' is' : 's are'} past ${flagAt} lines (flagged, not failed: lint fails at ${MAX_FUNCTION_LINES}); split them before they get there:`,
    ...found.map((entry) => `  ${entry.file}:${entry.line}  ${entry.lines} lines`),
  ].join('\n');
}

if (process.argv[1] === import.meta.filename) {
  console.log(longFunctionsText(await longFunctions(join(import.meta.dirname, '..'))));
}
