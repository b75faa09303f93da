// pipefill lab up / down: a WAN link on this machine (Linux, root).

import type { PipefillApi } from '../../contract/api.js';
import type { LabBenchCell, LabBenchLink } from '../../lab/bench.js';
import { runLabBench } from '../../lab/bench.js';
import { labDown, labEndpoints, labUp } from '../../lab/wan-lab.js';
import { CLIENT_PROFILE_IDS } from '../../model/client-profiles.js';
import { PipefillInputError } from '../../model/errors.js';
import { formatBytes, formatDuration, formatRate, parseRate, parseSizeBytes, parseTimeMs } from '../../model/units.js';
import { linkFromFields } from '../../contract/link-fields.js';
import { bdpBytes } from '../../model/link.js';
import { optional, parseOptions, required } from '../args.js';
import type { Output } from '../output.js';
import { printJson } from '../output.js';
import { formatTable } from '../table.js';
import { parseSambaOption, sambaOptionNames } from '../../advice/samba-option.js';

export const LAB_USAGE = `pipefill lab up --rate <rate> --rtt <time> [--loss <pct> [--loss-burst <packets>]] [--queue <size|Nbdp|time>] [--jitter <time>]
  [--tunnel wireguard] [--samba-option 'smb2 max credits = 16' ...] [--no-samba] [--json]
pipefill lab down [--id <id>]
pipefill lab bench [--links 155mbit/32ms,52mbit/75ms,622mbit/75ms] [--profiles <ids>] [--ops read,write]
  [--size 32MiB] [--dirset-scale 0.05] [--json]
  Two network namespaces joined by Pipefill's WAN emulator, with Samba and iperf3 in "datacenter".
  Run a client inside the printed namespace (ip netns exec <ns> ...) to cross the link. Linux, root.
  --loss-burst N loses packets in runs of N on average (a Gilbert model, as a fading Wi-Fi or DSL hop does), the
  average loss still --loss.
  --tunnel wireguard joins the two by WireGuard in user space (wireguard-go, built with Go 1.23 or newer from
  the Go module proxy): the share and iperf3 are then reached through the tunnel, as from behind a VPN.
  --samba-option (repeatable) sets a performance setting of the lab's Samba, to reproduce a server's:
  ${sambaOptionNames().join(', ')}.`;

const OPTIONS = {
  rate: { type: 'string' },
  rtt: { type: 'string' },
  loss: { type: 'string' },
  'loss-burst': { type: 'string' },
  queue: { type: 'string' },
  jitter: { type: 'string' },
  'no-samba': { type: 'boolean' },
  tunnel: { type: 'string' },
  'samba-option': { type: 'string', multiple: true },
  id: { type: 'string' },
  links: { type: 'string' },
  profiles: { type: 'string' },
  ops: { type: 'string' },
  size: { type: 'string' },
  'dirset-scale': { type: 'string' },
  json: { type: 'boolean' },
} as const;

export const DEFAULT_BENCH_LINKS = '155mbit/32ms,52mbit/75ms,622mbit/75ms';
export const DEFAULT_BENCH_PROFILES = 'xp-smb1,win7-smb1,win7-smb2,win10-smb3,pipefill-max';

function parseLinks(text: string): { label: string; link: { bandwidthBitsPerSecond: number; rttMs: number } }[] {
  return text.split(',').map((item) => {
    const [rate, rtt, ...rest] = item.trim().split('/');
    if (!rate || !rtt || rest.length > 0)
      throw new PipefillInputError(`Cannot read the link ${JSON.stringify(item)}.`, 'Expected rate/rtt pairs, e.g. 155mbit/32ms,52mbit/75ms.');
    return { label: item.trim(), link: { bandwidthBitsPerSecond: parseRate(rate), rttMs: parseTimeMs(rtt) } };
  });
}

function parseList<T extends string>(text: string, valid: readonly T[], what: string): T[] {
  return text.split(',').map((item) => {
    const id = item.trim() as T;
    if (!valid.includes(id)) throw new PipefillInputError(`Unknown ${what} ${JSON.stringify(item)}.`, `Valid: ${valid.join(', ')}.`);
    return id;
  });
}

async function benchCommand(values: Record<string, unknown>, output: Output): Promise<void> {
  const links = parseLinks(optional(values, 'links') ?? DEFAULT_BENCH_LINKS);
  const profiles = parseList(optional(values, 'profiles') ?? DEFAULT_BENCH_PROFILES, CLIENT_PROFILE_IDS, 'profile');
  const ops = parseList(optional(values, 'ops') ?? 'read,write', ['read', 'write'] as const, 'op');
  const fileBytes = parseSizeBytes(optional(values, 'size') ?? '32MiB');
  const scale = optional(values, 'dirset-scale');
  const results = await runLabBench({
    links,
    profiles,
    ops,
    fileBytes,
    ...(scale === undefined ? {} : { dirsetScale: Number(scale) }),
    onProgress: (line) => output.err(line),
  });
  if (values['json']) {
    printJson(output, { links: results });
    return;
  }
  output.out(formatLabBench(results));
}

export function formatLabBench(results: readonly LabBenchLink[]): string {
  const sections = results.map((link) => {
    // The throughput comparison: pipefill-max on the same file size smbclient moved.
    const max = (op: 'read' | 'write') => link.cells.find((cell) => cell.profile === 'pipefill-max' && cell.op === op && cell.bytes === link.throughputBytes);
    const mbps = (cell: LabBenchCell | undefined) => (cell ? (cell.bytes * 8) / cell.measuredSeconds / 1e6 : NaN);
    const ratios = (['read', 'write'] as const)
      .filter((op) => max(op))
      .map(
        (op) =>
          `pipefill-max ${op} ${mbps(max(op)).toFixed(1)} Mb/s = ${(mbps(max(op)) / link.iperf3Mbps).toFixed(2)}x iperf3, ${(mbps(max(op)) / (op === 'read' ? link.smbclientReadMbps : link.smbclientWriteMbps)).toFixed(2)}x smbclient`,
      )
      .join('; ');
    const table = formatTable(
      ['profile', 'op', 'workload', 'measured', 'predicted', 'error', 'model limit'],
      link.cells.map((cell) => [
        cell.profile,
        cell.op,
        cell.workload,
        `${cell.measuredSeconds.toFixed(2)} s`,
        `${cell.predictedSeconds.toFixed(2)} s`,
        `${(cell.error * 100).toFixed(0)}%`,
        cell.limitedBy,
      ]),
      ['left', 'left', 'left', 'right', 'right', 'right', 'left'],
    );
    return `${link.bandwidth} / ${link.rtt} (measured RTT ${link.measuredRttMs.toFixed(2)} ms, ${link.congestion}): iperf3 ${link.iperf3Mbps.toFixed(1)} Mb/s, smbclient get ${link.smbclientReadMbps.toFixed(1)} / put ${link.smbclientWriteMbps.toFixed(1)} Mb/s\n${ratios}\n${table}`;
  });
  return sections.join('\n\n');
}

/** The forwarder's queue is never below one full-size packet. */
const LEAST_QUEUE_BYTES = 1600;

export async function labCommand(argv: readonly string[], _api: PipefillApi, output: Output): Promise<void> {
  const [action, ...rest] = argv;
  const { values, positionals } = parseOptions(rest, OPTIONS, LAB_USAGE);
  if (positionals.length > 0) throw new PipefillInputError(`Unexpected argument ${JSON.stringify(positionals[0])}.`, LAB_USAGE);
  if (action === 'bench') {
    await benchCommand(values, output);
    return;
  }
  if (action === 'down') {
    const removed = await labDown(optional(values, 'id'));
    if (values.json) printJson(output, { removed });
    else output.out(removed.length > 0 ? `Removed lab ${removed.join(', ')}.` : 'No lab was up.');
    return;
  }
  if (action !== 'up') throw new PipefillInputError(`Unknown lab action ${JSON.stringify(action ?? '')}.`, LAB_USAGE);
  // The link as every other input reads one; the queue is the bottleneck's buffer.
  const queue = optional(values, 'queue');
  const loss = optional(values, 'loss');
  const { bufferBytes, ...link } = linkFromFields(
    {
      bandwidth: required(values, 'rate', '155mbit'),
      rtt: required(values, 'rtt', '32ms'),
      ...(loss === undefined ? {} : { loss }),
      ...(queue === undefined ? {} : { buffer: queue }),
    },
    { bandwidthBitsPerSecond: 0, rttMs: 0 },
  );
  const queueBytes = bufferBytes === undefined ? undefined : Math.max(LEAST_QUEUE_BYTES, bufferBytes);
  const jitter = optional(values, 'jitter');
  const burst = optional(values, 'loss-burst');
  const lossBurstPackets = burst === undefined ? undefined : Number(burst);
  if (lossBurstPackets !== undefined && !(Number.isFinite(lossBurstPackets) && lossBurstPackets >= 1 && lossBurstPackets <= 1000))
    throw new PipefillInputError(
      `--loss-burst ${JSON.stringify(burst)} is no run of packets.`,
      'Give the mean run of lost packets, 1 to 1000 (1: each on its own).',
    );
  if (lossBurstPackets !== undefined && loss === undefined) throw new PipefillInputError('--loss-burst shapes the loss --loss gives.', LAB_USAGE);
  const sambaOptions = (values['samba-option'] ?? []).map(parseSambaOption);
  if (sambaOptions.length > 0 && values['no-samba'])
    throw new PipefillInputError("--samba-option sets the lab's Samba, and --no-samba leaves it out.", LAB_USAGE);
  const sambaGlobals = Object.fromEntries(sambaOptions.map((option) => [option.name, option.value]));
  const tunnel = optional(values, 'tunnel');
  if (tunnel !== undefined && tunnel !== 'wireguard')
    throw new PipefillInputError(`Unknown tunnel ${JSON.stringify(tunnel)}.`, 'The lab has one: --tunnel wireguard.');
  const state = await labUp(
    {
      ...link,
      ...(queueBytes === undefined ? {} : { queueBytes }),
      ...(jitter === undefined ? {} : { jitterMs: parseTimeMs(jitter) }),
      ...(lossBurstPackets === undefined ? {} : { lossBurstPackets }),
    },
    { samba: !values['no-samba'], ...(sambaOptions.length > 0 ? { sambaGlobals } : {}), ...(tunnel ? { tunnel } : {}) },
  );
  const endpoints = labEndpoints(state);
  if (values.json) {
    printJson(output, endpoints);
    return;
  }
  output.out(
    [
      `Lab ${state.id} is up: ${formatRate(link.bandwidthBitsPerSecond)}, ${formatDuration(link.rttMs)} RTT, BDP ${formatBytes(bdpBytes(link))}, congestion control ${state.congestion} (clients), ${state.serverCongestion ?? state.congestion} (servers).`,
      endpoints.share ? `  share      ${endpoints.share}  (user ${endpoints.user}, password ${endpoints.password})` : '',
      ...sambaOptions.map((option) => `  samba      ${option.name} = ${option.value}`),
      endpoints.iperf ? `  iperf3     ${endpoints.iperf}` : '',
      state.tunnel ? `  tunnel     WireGuard (wireguard-go), MTU ${state.tunnel.mtuBytes}: the share and iperf3 are reached through it` : '',
      `  clients    ip netns exec ${endpoints.clientNamespace} <command>`,
      `  remove     pipefill lab down --id ${state.id}`,
    ]
      .filter(Boolean)
      .join('\n'),
  );
}
