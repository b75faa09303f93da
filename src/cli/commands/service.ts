// `pipefill service --stdio`: the contract served on this process's stdin
// and stdout, one JSON line per request and per frame
// (src/contract/line-transport.ts), until stdin ends. A front end runs it
// where its calls must run: `pipefill ui --demo` starts it inside the WAN
// lab's branch namespace, so the assessments' sockets cross the emulated
// link while the page is served on this machine's 127.0.0.1. Nothing else
// is written to stdout; notes go to stderr.

import type { PipefillApi } from '../../contract/api.js';
import { MAX_LINE_CHARS, serveApiOverLines } from '../../contract/line-transport.js';
import { PipefillInputError } from '../../model/errors.js';
import { readLines } from '../../platform/line-stream.js';
import type { Output } from '../output.js';
import { parseOptions } from '../args.js';

export const SERVICE_USAGE = `pipefill service --stdio
  Serves Pipefill's contract on stdin/stdout (one JSON object per line) until stdin closes: for a
  front end that runs its service in another process or network namespace (\`ui --demo\` does).`;

const OPTIONS = { stdio: { type: 'boolean' } } as const;

export async function serviceCommand(argv: readonly string[], api: PipefillApi, output: Output): Promise<void> {
  const { values, positionals } = parseOptions(argv, OPTIONS, SERVICE_USAGE);
  if (positionals.length > 0) throw new PipefillInputError(`Unexpected argument ${JSON.stringify(positionals[0])}.`, SERVICE_USAGE);
  if (values.stdio !== true) throw new PipefillInputError('pipefill service needs --stdio (the only transport it serves).', SERVICE_USAGE);
  // The reply lines are the stdout: nothing else may be written there.
  const server = serveApiOverLines(api, (line) => process.stdout.write(`${line}\n`));
  await new Promise<void>((resolve) => {
    readLines(process.stdin, MAX_LINE_CHARS, {
      onLine: (line) => server.receive(line),
      onOverlong: () => output.err('pipefill service: dropped a request line longer than the contract allows.'),
      onEnd: () => {
        // The front end went away: its calls are cancelled, which cleans the share's scratch up before this returns.
        server.close();
        resolve();
      },
    });
  });
}
