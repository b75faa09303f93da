// pipefill analyze: a packet capture of a real copy (pcap or pcapng, from
// tcpdump, Wireshark or pktmon's etl2pcap), read through the contract like
// every other command: what each SMB client did and how its copies stand
// against the model with the path, client and server as the capture shows.

import { basename } from 'node:path';
import type { PipefillApi } from '../../contract/api.js';
import { PipefillInputError } from '../../model/errors.js';
import { parseRate } from '../../model/units.js';
import { captureText } from '../../presentation/capture-text.js';
import { optional, parseOptions } from '../args.js';
import type { Output } from '../output.js';
import { printJson } from '../output.js';

export const ANALYZE_USAGE = `pipefill analyze <capture.pcap|capture.pcapng> [--bandwidth R] [--json]
  Reads a packet capture of a copy (tcpdump -w, Wireshark, pktmon etl2pcap; Ethernet, Linux cooked or raw IP,
  IPv4 and IPv6) and reports each SMB connection in it: the dialect, signing and encryption, the credits the
  server granted, each file read or written with the requests the client really issued (their size, how many
  in flight), the server's time per command, TCP's windows and what was sent again; and each copy's time beside
  the model's with the path, client and server as seen. --bandwidth gives the line's rate, which a capture
  cannot show. Nothing is sent anywhere; encrypted sessions are read from their sizes alone.`;

const OPTIONS = {
  bandwidth: { type: 'string' },
  json: { type: 'boolean' },
} as const;

export async function analyzeCommand(argv: readonly string[], api: PipefillApi, output: Output): Promise<void> {
  const { values, positionals } = parseOptions(argv, OPTIONS, ANALYZE_USAGE);
  const [path, extra] = positionals;
  if (path === undefined) throw new PipefillInputError('Give the capture file to analyse.', ANALYZE_USAGE);
  if (extra !== undefined) throw new PipefillInputError(`Unexpected argument ${JSON.stringify(extra)}.`, ANALYZE_USAGE);
  const bandwidth = optional(values, 'bandwidth');
  // A rate that does not parse fails here, before the file is read.
  if (bandwidth !== undefined) parseRate(bandwidth);
  const analysis = await api.analyzeCapture({ path, ...(bandwidth === undefined ? {} : { bandwidth }) });
  if (values.json) printJson(output, analysis);
  else output.out(captureText(analysis, basename(path)));
}
