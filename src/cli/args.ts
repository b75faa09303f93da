// Command-line options on node:util's parser, with errors in Pipefill's form.

import { parseArgs } from 'node:util';
import { PipefillInputError } from '../model/errors.js';
import { didYouMean } from './did-you-mean.js';

export type OptionSpec = Record<string, { type: 'string' | 'boolean'; short?: string; multiple?: boolean }>;

export function parseOptions<T extends OptionSpec>(argv: readonly string[], options: T, usage: string) {
  try {
    return parseArgs({ args: [...argv], options, strict: true, allowPositionals: true });
  } catch (error) {
    throw optionError(error, Object.keys(options), usage);
  }
}

/** The command a usage text is for: "pipefill report export ..." -> "report". */
const commandOf = (usage: string): string => /^pipefill ([a-z-]+)/.exec(usage)?.[1] ?? '';

/**
 * node:util's parse error in one line a person can act on: the option that
 * is not known (and the one probably meant), or the one that needs a value;
 * the hint points to the command's --help, not its whole usage.
 */
export function optionError(error: unknown, known: readonly string[], usage: string): PipefillInputError {
  const command = commandOf(usage);
  const help = `pipefill ${command} --help lists its options.`;
  const code = (error as { code?: unknown }).code;
  const message = error instanceof Error ? error.message : String(error);
  // The parser quotes what was typed: 'Unknown option '--bandwith'. ...' and "Option '--share <value>' argument missing".
  const quoted = /'(-[^' ]+)/.exec(message)?.[1];
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && quoted) {
    const typed = quoted.replace(/=.*$/, '');
    if (typed === '--password' || typed === '-p')
      return new PipefillInputError(
        `pipefill ${command} takes no password on the command line: other people on this machine could read it there.`,
        'Put it in an environment variable and name that with --password-env VAR, or leave both out and type it at the prompt.',
      );
    const meant = typed.startsWith('--') ? didYouMean(typed.slice(2), known) : undefined;
    return new PipefillInputError(`Unknown option ${typed}${meant ? ` (did you mean --${meant}?)` : ''}.`, help);
  }
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && quoted) {
    return /argument missing/.test(message)
      ? new PipefillInputError(`${quoted} needs a value.`, help)
      : new PipefillInputError(`${quoted} takes no value.`, help);
  }
  return new PipefillInputError(message.replace(/\.?$/, '.'), help);
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
