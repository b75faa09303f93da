// Runs one CLI command line in this process, for the CLI's tests: its exit
// code and what it wrote to each stream.

import { runCli } from '../cli/main.js';
import type { Output } from '../cli/output.js';

export async function runCliCaptured(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const output: Output = { out: (text) => out.push(text), err: (text) => err.push(text) };
  const code = await runCli(argv, output);
  return { code, out: out.join('\n'), err: err.join('\n') };
}
