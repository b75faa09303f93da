// Where command output goes. Commands write results to `out` only, so
// `--json` output can be piped; notes and progress go to `err`.

import { printable } from '../model/terminal-text.js';

export interface Output {
  out(text: string): void;
  err(text: string): void;
}

/**
 * The terminal's output: everything the CLI prints goes through `printable`,
 * since much of it comes from documents and servers (share names, headlines,
 * names a server chose) and a terminal obeys the control characters in them.
 */
export const processOutput: Output = {
  out: (text) => process.stdout.write(printable(text.endsWith('\n') ? text : `${text}\n`)),
  err: (text) => process.stderr.write(printable(text.endsWith('\n') ? text : `${text}\n`)),
};

/**
 * A reader that goes away (`| head`, a closed terminal, a parent that
 * exited) must not end a run before it has cleaned up after itself (scratch
 * on the share, the demo's servers): what is written after that is dropped.
 */
export function ignoreClosedOutput(): void {
  for (const stream of [process.stdout, process.stderr]) {
    if (stream.listenerCount('error') > 0) continue;
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE') throw error;
    });
  }
}

export function printJson(output: Output, value: unknown): void {
  output.out(JSON.stringify(value, null, 2));
}
