// Types for size-rules.mjs (plain JavaScript: eslint.config.js loads it unbuilt).

import type { Linter } from 'eslint';

export const MAX_FILE_LINES: number;
export const MAX_FUNCTION_LINES: number;
export const FLAG_FUNCTION_LINES: number;
export const LONG_FILES_BY_DESIGN: readonly string[];
export const SIZE_RULES: Linter.RulesRecord;
