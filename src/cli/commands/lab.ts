// pipefill lab up / down: a WAN link on this machine (Linux, root).

import type { PipefillApi } from '../../contract/api.js';
import { labDown, labEndpoints, labUp } from '../../lab/wan-lab.js';
import { PipefillInputError } from '../../model/errors.js';
import { formatBytes, formatDuration, formatRate, parseLossRate, parseRate, parseSizeBytes, parseTimeMs } from '../../model/units.js';
import { bdpBytes } from '../../model/link.js';
import { optional, parseOptions, required } from '../args.js';
import type { Output } from '../output.js';
import { printJson } from '../output.js';

export const LAB_USAGE = `pipefill lab up --rate <rate> --rtt <time> [--loss <pct>] [--queue <size|Nbdp>] [--jitter <time>] [--no-samba] [--json]
pipefill lab down [--id <id>]
  Two network namespaces joined by Pipefill's WAN emulator, with Samba and iperf3 in "datacenter".
  Run a client inside the printed namespace (ip netns exec <ns> ...) to cross the link. Linux, root.`;

const OPTIONS = {
  rate: { type: 'string' },
  rtt: { type: 'string' },
  loss: { type: 'string' },
  queue: { type: 'string' },
  jitter: { type: 'string' },
  'no-samba': { type: 'boolean' },
  id: { type: 'string' },
  json: { type: 'boolean' },
} as const;

function parseQueue(text: string | undefined, bdp: number): number | undefined {
  if (text === undefined) return undefined;
  const multiple = /^([0-9.]+)\s*bdp$/i.exec(text.trim());
  if (multiple?.[1]) return Math.max(1500, Math.round(Number(multiple[1]) * bdp));
  return parseSizeBytes(text);
}

export async function labCommand(argv: readonly string[], _api: PipefillApi, output: Output): Promise<void> {
  const [action, ...rest] = argv;
  const { values, positionals } = parseOptions(rest, OPTIONS, LAB_USAGE);
  if (positionals.length > 0) throw new PipefillInputError(`Unexpected argument ${JSON.stringify(positionals[0])}.`, LAB_USAGE);
  if (action === 'down') {
    const removed = await labDown(optional(values, 'id'));
    if (values.json) printJson(output, { removed });
    else output.out(removed.length > 0 ? `Removed lab ${removed.join(', ')}.` : 'No lab was up.');
    return;
  }
  if (action !== 'up') throw new PipefillInputError(`Unknown lab action ${JSON.stringify(action ?? '')}.`, LAB_USAGE);
  const bandwidthBitsPerSecond = parseRate(required(values, 'rate', '155mbit'));
  const rttMs = parseTimeMs(required(values, 'rtt', '32ms'));
  const link = { bandwidthBitsPerSecond, rttMs };
  const loss = optional(values, 'loss');
  const queueBytes = parseQueue(optional(values, 'queue'), bdpBytes(link));
  const jitter = optional(values, 'jitter');
  const state = await labUp(
    {
      ...link,
      ...(loss === undefined ? {} : { lossRate: parseLossRate(loss) }),
      ...(queueBytes === undefined ? {} : { queueBytes }),
      ...(jitter === undefined ? {} : { jitterMs: parseTimeMs(jitter) }),
    },
    { samba: !values['no-samba'] },
  );
  const endpoints = labEndpoints(state);
  if (values.json) {
    printJson(output, endpoints);
    return;
  }
  output.out(
    [
      `Lab ${state.id} is up: ${formatRate(bandwidthBitsPerSecond)}, ${formatDuration(rttMs)} RTT, BDP ${formatBytes(bdpBytes(link))}, congestion control ${state.congestion}.`,
      endpoints.share ? `  share      ${endpoints.share}  (user ${endpoints.user}, password ${endpoints.password})` : '',
      endpoints.iperf ? `  iperf3     ${endpoints.iperf}` : '',
      `  clients    ip netns exec ${endpoints.clientNamespace} <command>`,
      `  remove     pipefill lab down --id ${state.id}`,
    ]
      .filter(Boolean)
      .join('\n'),
  );
}
