// Command-line options on node:util's parser, with errors in Pipefill's form.

import { parseArgs } from 'node:util';
import { PipefillInputError } from '../model/errors.js';

export type OptionSpec = Record<string, { type: 'string' | 'boolean'; short?: string; multiple?: boolean }>;

export function parseOptions<T extends OptionSpec>(argv: readonly string[], options: T, usage: string) {
  try {
    return parseArgs({ args: [...argv], options, strict: true, allowPositionals: true });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new PipefillInputError(message, usage);
  }
}

/** A required string option, or an error naming it. */
export function required(values: Record<string, unknown>, name: string, example: string): string {
  const value = values[name];
  if (typeof value !== 'string' || value.trim() === '') {
    throw new PipefillInputError(`Missing --${name}.`, `For example --${name} ${example}.`);
  }
  return value;
}

export function optional(values: Record<string, unknown>, name: string): string | undefined {
  const value = values[name];
  return typeof value === 'string' ? value : undefined;
}
