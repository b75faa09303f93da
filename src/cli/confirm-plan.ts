// The CLI says what a run will do before its first byte (issue 38): the plan
// goes to stderr, always; where a person is at a terminal they are asked to
// go ahead, unless --yes. Scripts and pipes (no terminal) are never asked: a
// question nobody can answer would hang them.

import { createInterface } from 'node:readline/promises';
import type { Readable, Writable } from 'node:stream';
import { PipefillInputError } from '../model/errors.js';
import type { Output } from './output.js';

export const YES_OPTION = { yes: { type: 'boolean', short: 'y' } } as const;
export const YES_HELP = '  --yes (-y) starts without asking; at a terminal the plan is shown and you are asked first.';

export interface ConfirmStreams {
  readonly input: Readable & { readonly isTTY?: boolean };
  readonly prompt: Writable & { readonly isTTY?: boolean };
}

const processStreams = (): ConfirmStreams => ({ input: process.stdin, prompt: process.stderr });

/** "", "y" and "yes" go ahead (the default, as the prompt's capital Y says); anything else does not. */
export const saysYes = (answer: string): boolean => /^(y(es)?)?$/i.test(answer.trim());

/**
 * Prints the plan and, at a terminal without --yes, asks. Returns whether it
 * asked (the run's time budget then starts after the answer, not at the
 * process's start); a "no" ends the command before anything is written.
 */
export async function confirmPlan(plan: string, yes: boolean, output: Output, streams: ConfirmStreams = processStreams()): Promise<boolean> {
  output.err(`Plan: ${plan}`);
  if (yes || !streams.input.isTTY || !streams.prompt.isTTY) return false;
  const reader = createInterface({ input: streams.input, output: streams.prompt, terminal: true });
  try {
    const answer = await reader.question('Go ahead? [Y/n] ');
    if (!saysYes(answer)) throw new PipefillInputError('Not started: nothing was written to the share.', 'Run it again and answer y, or add --yes.');
    return true;
  } finally {
    reader.close();
  }
}
