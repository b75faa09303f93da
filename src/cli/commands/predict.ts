// pipefill predict: one scenario from options, or many from a JSON file.

import { readFileSync } from 'node:fs';
import type { PipefillApi } from '../../contract/api.js';
import type { PredictionResult, ScenarioInput } from '../../contract/scenario.js';
import { CLIENT_PROFILES, type ClientProfileId } from '../../model/client-profiles.js';
import { PipefillInputError } from '../../model/errors.js';
import { isProtectionRequest, PROTECTION_REQUESTS } from '../../model/negotiation.js';
import { formatBinaryBytes, formatBytes, formatDuration, formatRate } from '../../model/units.js';
import { optional, parseOptions, required } from '../args.js';
import type { Output } from '../output.js';
import { printJson } from '../output.js';
import { formatTable } from '../table.js';
import { parseMtuBytes } from '../../model/path-mtu.js';

export const PREDICT_USAGE = `pipefill predict --client <id> --server <id> --op <read|write> \\
  --workload <file:100MB|tr3869-dirset[:scale]> --bandwidth <rate> --rtt <time> [--loss <pct>]
  [--buffer <size|0.25bdp|20ms>] [--mtu <bytes|wireguard|gre|pppoe>] [--security <auto|none|signing|encryption|algorithm>]
  [--channels <n>] [--json]
pipefill predict --batch <scenarios.json|-> [--json]
  Client ids: ${Object.keys(CLIENT_PROFILES).join(', ')}. 'pipefill profiles' lists servers and presets.
  --buffer: the bottleneck router's queue (default one BDP). --security: what protects the data (default:
  what the pair negotiates; algorithms: ${PROTECTION_REQUESTS.filter((request) => request.includes('-')).join(', ')}).
  --channels: SMB 3 multichannel connections (default 1). --mtu: the path's largest packet, a tunnel's (default 1500).`;

const OPTIONS = {
  client: { type: 'string' },
  server: { type: 'string' },
  op: { type: 'string' },
  workload: { type: 'string' },
  bandwidth: { type: 'string' },
  rtt: { type: 'string' },
  loss: { type: 'string' },
  buffer: { type: 'string' },
  mtu: { type: 'string' },
  security: { type: 'string' },
  channels: { type: 'string' },
  batch: { type: 'string' },
  json: { type: 'boolean' },
} as const;

const MAX_BATCH_CHARACTERS = 16 * 1024 * 1024;
const MAX_BATCH_SCENARIOS = 100_000;

function readBatch(path: string): unknown {
  let text: string;
  try {
    text = readFileSync(path === '-' ? 0 : path, 'utf8');
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new PipefillInputError(`Cannot read the batch file ${path}: ${reason}`, 'Give the path of a JSON file, or - for standard input.');
  }
  // A batch is a list of scenarios a person or a script wrote: far below this, or not a batch.
  if (text.length > MAX_BATCH_CHARACTERS)
    throw new PipefillInputError(
      `The batch file ${path} is over ${MAX_BATCH_CHARACTERS / 1024 / 1024} MiB.`,
      `Split it: at most ${MAX_BATCH_SCENARIOS} scenarios per run.`,
    );
  try {
    const parsed: unknown = JSON.parse(text);
    if (!Array.isArray(parsed)) throw new Error('the top level is not an array');
    if (parsed.length > MAX_BATCH_SCENARIOS) throw new Error(`${parsed.length} scenarios, more than ${MAX_BATCH_SCENARIOS}`);
    return parsed;
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new PipefillInputError(
      `The batch file ${path} is not a JSON array of scenarios (${reason}).`,
      'Expected [{"client": "win7-smb2", "server": "netapp-tr3869", "op": "read", "workload": "file:100MB", "bandwidth": "OC3", "rtt": "32ms"}, ...].',
    );
  }
}

function describeLayerRow(layer: PredictionResult['layers'][number], limitedBy: string): string[] {
  const name = layer.layer === 'bandwidth' ? 'bandwidth (BDP)' : layer.layer;
  return [`${layer.layer === limitedBy ? '> ' : '  '}${name}`, formatBinaryBytes(layer.bytesInFlight), formatRate(layer.throughputMbps * 1e6)];
}

/** "SMB 3.1.1, signed with AES-128-GMAC (Windows 11 24H2 requires signing)". */
export function negotiatedLine(negotiated: PredictionResult['negotiated']): string {
  const protection =
    negotiated.protection === 'none'
      ? 'neither signed nor encrypted'
      : `${negotiated.protection === 'signing' ? 'signed' : 'encrypted'} with ${negotiated.algorithm ?? '?'}`;
  return `SMB ${negotiated.dialect}, ${protection} (${negotiated.reason})`;
}

export function formatPrediction(result: PredictionResult): string {
  const client = CLIENT_PROFILES[result.client as ClientProfileId].label;
  const heading = `${client} ${result.op === 'read' ? 'reading' : 'writing'} ${result.workload} ${result.op === 'read' ? 'from' : 'to'} ${result.server} over ${result.bandwidth}, ${result.rtt}${result.loss ? `, ${result.loss} loss` : ''}${result.mtu ? `, ${parseMtuBytes(result.mtu)}-byte packets` : ''}`;
  const summary = formatTable(
    ['', ''],
    [
      ['expected time', formatDuration(result.seconds * 1000)],
      ['throughput', formatRate(result.throughputMbps * 1e6)],
      ['BDP', formatBytes(result.bdpBytes)],
      ['limited by', result.limitedBy],
      ['negotiated', negotiatedLine(result.negotiated)],
      ['bottleneck buffer', `${formatBytes(result.bufferBytes)} (${Math.round((result.bufferBytes / result.bdpBytes) * 100)}% of the BDP)`],
      ['metadata', `${result.breakdown.metadataRoundTrips} round trips, ${formatDuration(result.breakdown.metadataSeconds * 1000)}`],
    ],
  )
    .split('\n')
    .slice(1)
    .map((line) => `  ${line}`)
    .join('\n');
  const layers = formatTable(
    ['  layer', 'in flight', 'allows'],
    result.layers.map((layer) => describeLayerRow(layer, result.limitedBy)),
    ['left', 'right', 'right'],
  );
  return `${heading}\n\n${summary}\n\n${layers}\n\n${result.explanation}`;
}

export function formatBatch(results: readonly PredictionResult[]): string {
  return formatTable(
    ['client', 'server', 'op', 'workload', 'bandwidth', 'rtt', 'time', 'Mb/s', 'limited by'],
    results.map((r) => [r.client, r.server, r.op, r.workload, r.bandwidth, r.rtt, formatDuration(r.seconds * 1000), r.throughputMbps.toFixed(1), r.limitedBy]),
    ['left', 'left', 'left', 'left', 'right', 'right', 'right', 'right', 'left'],
  );
}

export async function predictCommand(argv: readonly string[], api: PipefillApi, output: Output): Promise<void> {
  const { values, positionals } = parseOptions(argv, OPTIONS, PREDICT_USAGE);
  if (positionals.length > 0) throw new PipefillInputError(`Unexpected argument ${JSON.stringify(positionals[0])}.`, PREDICT_USAGE);
  const batch = optional(values, 'batch');
  if (batch !== undefined) {
    const scenarioKeys = ['client', 'server', 'op', 'workload', 'bandwidth', 'rtt', 'loss', 'buffer', 'mtu', 'security', 'channels'].filter(
      (key) => values[key as keyof typeof values] !== undefined,
    );
    if (scenarioKeys.length > 0)
      throw new PipefillInputError(`--batch takes its scenarios from the file; --${scenarioKeys[0]} does not go with it.`, PREDICT_USAGE);
    const results = await api.predictBatch(readBatch(batch) as ScenarioInput[]);
    if (values.json) printJson(output, results);
    else output.out(formatBatch(results));
    return;
  }
  const loss = optional(values, 'loss');
  const buffer = optional(values, 'buffer');
  const mtu = optional(values, 'mtu');
  const security = optional(values, 'security');
  const channels = optional(values, 'channels');
  if (security !== undefined && !isProtectionRequest(security))
    throw new PipefillInputError(`Unknown --security ${JSON.stringify(security)}.`, `Valid: ${PROTECTION_REQUESTS.join(', ')}.`);
  if (channels !== undefined && !/^\d{1,2}$/.test(channels))
    throw new PipefillInputError(`--channels takes a whole number of connections, not ${JSON.stringify(channels)}.`, 'For example --channels 4.');
  const input = {
    client: required(values, 'client', 'win7-smb2'),
    server: required(values, 'server', 'samba'),
    op: required(values, 'op', 'read'),
    workload: required(values, 'workload', 'file:100MB'),
    bandwidth: required(values, 'bandwidth', '155mbit'),
    rtt: required(values, 'rtt', '32ms'),
    ...(loss === undefined ? {} : { loss }),
    ...(buffer === undefined ? {} : { buffer }),
    ...(mtu === undefined ? {} : { mtu }),
    ...(security === undefined ? {} : { security }),
    ...(channels === undefined ? {} : { channels: Number(channels) }),
  };
  const result = await api.predict(input as ScenarioInput);
  if (values.json) printJson(output, result);
  else output.out(formatPrediction(result));
}
