// Types for long-functions.mjs (plain JavaScript: npm test runs it unbuilt).

export interface LongFunction {
  readonly file: string;
  readonly line: number;
  readonly lines: number;
}

export function longFunctions(cwd: string, flagAt?: number): Promise<LongFunction[]>;
export function longFunctionsText(found: readonly LongFunction[], flagAt?: number): string;
