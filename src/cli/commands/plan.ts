// pipefill plan: the what-if planner in a terminal. No share needed.

import type { PipefillApi } from '../../contract/api.js';
import type { PlanInput, PlanResult } from '../../contract/plan.js';
import { PipefillInputError } from '../../model/errors.js';
import { formatBytes, formatDuration, formatRate } from '../../model/units.js';
import { optional, parseOptions } from '../args.js';
import type { Output } from '../output.js';
import { printJson } from '../output.js';
import { formatTable } from '../table.js';

export const PLAN_USAGE = `pipefill plan [--preset <id> | --bandwidth <rate> --rtt <time>] [--loss <pct>] [--server <id>] [--json]
  How long the TR-3869 tests (a 100 MB file, the 1 GiB directory set) take over a link,
  for every client generation. 'pipefill profiles' lists presets and servers.`;

const OPTIONS = {
  preset: { type: 'string' },
  bandwidth: { type: 'string' },
  rtt: { type: 'string' },
  loss: { type: 'string' },
  server: { type: 'string' },
  json: { type: 'boolean' },
} as const;

export function formatPlan(plan: PlanResult): string {
  const { link } = plan;
  const heading = `${link.label}: ${formatRate(link.bandwidthBitsPerSecond)}, ${formatDuration(link.rttMs)} RTT${link.lossRate > 0 ? `, ${(link.lossRate * 100).toPrecision(2)}% loss` : ''}, BDP ${formatBytes(link.bdpBytes)}; server ${plan.server}`;
  const columns = [...new Set(plan.cells.map((cell) => `${cell.op} ${cell.workload}`))];
  const clients = [...new Set(plan.cells.map((cell) => cell.clientLabel))];
  const rows = clients.map((label) => [
    label,
    ...columns.map((column) => {
      const cell = plan.cells.find((c) => c.clientLabel === label && `${c.op} ${c.workload}` === column);
      return cell ? formatDuration(cell.seconds * 1000) : '';
    }),
  ]);
  const table = formatTable(['client', ...columns], rows, ['left', ...columns.map(() => 'right' as const)]);
  return `${heading}\n\n${table}`;
}

export async function planCommand(argv: readonly string[], api: PipefillApi, output: Output): Promise<void> {
  const { values, positionals } = parseOptions(argv, OPTIONS, PLAN_USAGE);
  if (positionals.length > 0) throw new PipefillInputError(`Unexpected argument ${JSON.stringify(positionals[0])}.`, PLAN_USAGE);
  const input: Record<string, string> = {};
  for (const key of ['preset', 'bandwidth', 'rtt', 'loss', 'server'] as const) {
    const value = optional(values, key);
    if (value !== undefined) input[key] = value;
  }
  const plan = await api.plan(input as PlanInput);
  if (values.json) printJson(output, plan);
  else output.out(formatPlan(plan));
}
