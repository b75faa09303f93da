// pipefill plan: the what-if planner in a terminal. No share needed.

import type { PipefillApi } from '../../contract/api.js';
import type { PlanInput, PlanResult } from '../../contract/plan.js';
import { PipefillInputError } from '../../model/errors.js';
import { formatBytes, formatDuration, formatLossRate, formatRate } from '../../model/units.js';
import { optional, parseOptions } from '../args.js';
import type { Output } from '../output.js';
import { printJson } from '../output.js';
import { formatTable } from '../table.js';

export const PLAN_USAGE = `pipefill plan [--preset <id> | --bandwidth <rate> --rtt <time>] [--loss <pct>] [--buffer <size|0.25bdp|20ms>]
  [--mtu <bytes|wireguard|gre|pppoe>] [--server <id>] [--security <auto|none|signing|encryption|algorithm>] [--channels <n>] [--json]
  How long the TR-3869 tests (a 100 MB file, the 1 GiB directory set) take over a link,
  for every client generation. 'pipefill profiles' lists presets and servers.`;

const OPTIONS = {
  preset: { type: 'string' },
  bandwidth: { type: 'string' },
  rtt: { type: 'string' },
  loss: { type: 'string' },
  server: { type: 'string' },
  buffer: { type: 'string' },
  mtu: { type: 'string' },
  security: { type: 'string' },
  channels: { type: 'string' },
  json: { type: 'boolean' },
} as const;

export function formatPlan(plan: PlanResult): string {
  const { link } = plan;
  const buffer = Math.round((link.bufferBytes / link.bdpBytes) * 100) === 100 ? '' : `, buffer ${formatBytes(link.bufferBytes)}`;
  const mtu = link.mtuBytes === undefined || link.mtuBytes === 1500 ? '' : `, ${link.mtuBytes}-byte packets`;
  const session = `${plan.security === 'auto' ? '' : `, ${plan.security}`}${plan.channels > 1 ? `, ${plan.channels} channels` : ''}`;
  const heading = `${link.label}: ${formatRate(link.bandwidthBitsPerSecond)}, ${formatDuration(link.rttMs)} RTT${link.lossRate > 0 ? `, ${formatLossRate(link.lossRate)} loss` : ''}, BDP ${formatBytes(link.bdpBytes)}${buffer}${mtu}; server ${plan.server}${session}`;
  const columns = [...new Set(plan.cells.map((cell) => `${cell.op} ${cell.workload}`))];
  const clients = [...new Set(plan.cells.map((cell) => cell.clientLabel))];
  const rows = clients.map((label) => [
    label,
    ...columns.map((column) => {
      const cell = plan.cells.find((c) => c.clientLabel === label && `${c.op} ${c.workload}` === column);
      return cell ? formatDuration(cell.seconds * 1000) : '';
    }),
  ]);
  const protection = clients.map((label) => plan.cells.find((c) => c.clientLabel === label)?.protection ?? 'none');
  const table = formatTable(
    ['client', ...columns, 'protection'],
    rows.map((row, index) => [...row, protection[index] ?? 'none']),
    ['left', ...columns.map(() => 'right' as const), 'left'],
  );
  const refused = plan.refused.map((r) => `  ${r.client}: ${r.reason}`);
  return `${heading}\n\n${table}${refused.length > 0 ? `\n\nCannot connect with this server and session:\n${refused.join('\n')}` : ''}`;
}

export async function planCommand(argv: readonly string[], api: PipefillApi, output: Output): Promise<void> {
  const { values, positionals } = parseOptions(argv, OPTIONS, PLAN_USAGE);
  if (positionals.length > 0) throw new PipefillInputError(`Unexpected argument ${JSON.stringify(positionals[0])}.`, PLAN_USAGE);
  const input: Record<string, string | number> = {};
  for (const key of ['preset', 'bandwidth', 'rtt', 'loss', 'server', 'buffer', 'mtu', 'security'] as const) {
    const value = optional(values, key);
    if (value !== undefined) input[key] = value;
  }
  const channels = optional(values, 'channels');
  if (channels !== undefined) {
    if (!/^\d{1,2}$/.test(channels))
      throw new PipefillInputError(`--channels takes a whole number of connections, not ${JSON.stringify(channels)}.`, 'For example --channels 4.');
    input['channels'] = Number(channels);
  }
  const plan = await api.plan(input as PlanInput);
  if (values.json) printJson(output, plan);
  else output.out(formatPlan(plan));
}
