// The Planner view's state: a preset or slider values in, the contract's
// plan (the pure model, run in the page) out; the link encoded in the page
// address so a plan can be shared; the table as CSV. Pure.

import type { PlanInput, PlanResult } from '../../../../src/contract/plan.js';
import { csvRows } from '../../../../src/contract/csv.js';
import { planFromInput } from '../../../../src/contract/plan.js';
import { findPreset } from '../../../../src/model/presets.js';
import type { ServerProfileId } from '../../../../src/model/server-profiles.js';
import { SERVER_PROFILE_IDS } from '../../../../src/model/server-profiles.js';

export interface PlannerSettings {
  /** The preset the values came from, while they are unchanged. */
  readonly preset?: string;
  readonly bandwidthBitsPerSecond: number;
  readonly rttMs: number;
  readonly lossPercent: number;
  readonly server: ServerProfileId;
}

/** The bandwidth slider is logarithmic: 0.5 Mb/s to 10 Gb/s over SLIDER_STEPS steps. */
export const SLIDER_STEPS = 1000;
const MIN_BPS = 5e5;
const MAX_BPS = 1e10;

export function sliderToBandwidth(position: number): number {
  const fraction = Math.min(SLIDER_STEPS, Math.max(0, position)) / SLIDER_STEPS;
  const bps = 10 ** (Math.log10(MIN_BPS) + fraction * (Math.log10(MAX_BPS) - Math.log10(MIN_BPS)));
  // Three significant figures: 155 Mb/s, not 154.87.
  return Number(bps.toPrecision(3));
}

export function bandwidthToSlider(bps: number): number {
  const clamped = Math.min(MAX_BPS, Math.max(MIN_BPS, bps));
  return Math.round(((Math.log10(clamped) - Math.log10(MIN_BPS)) / (Math.log10(MAX_BPS) - Math.log10(MIN_BPS))) * SLIDER_STEPS);
}

export function settingsFromPreset(id: string, server: ServerProfileId): PlannerSettings | undefined {
  const preset = findPreset(id);
  return preset ? { preset: id, bandwidthBitsPerSecond: preset.link.bandwidthBitsPerSecond, rttMs: preset.link.rttMs, lossPercent: 0, server } : undefined;
}

/** The same link as a custom one: what moving a slider makes of a preset. */
export function asCustom(settings: PlannerSettings): PlannerSettings {
  return { bandwidthBitsPerSecond: settings.bandwidthBitsPerSecond, rttMs: settings.rttMs, lossPercent: settings.lossPercent, server: settings.server };
}

/** The contract's plan input for these settings: a preset as is, or the values. */
export function planInput(settings: PlannerSettings): PlanInput {
  if (settings.preset) return { preset: settings.preset, server: settings.server, ...(settings.lossPercent > 0 ? { loss: `${settings.lossPercent}%` } : {}) };
  return { bandwidth: `${settings.bandwidthBitsPerSecond}bit`, rtt: `${settings.rttMs}ms`, loss: `${settings.lossPercent}%`, server: settings.server };
}

export function plan(settings: PlannerSettings): PlanResult {
  return planFromInput(planInput(settings));
}

/** `#plan&bandwidth=…&rtt=…&loss=…&server=…` (and `preset=` while unchanged). */
export function plannerHash(settings: PlannerSettings): string {
  const params = new URLSearchParams();
  if (settings.preset) params.set('preset', settings.preset);
  params.set('bandwidth', String(settings.bandwidthBitsPerSecond));
  params.set('rtt', String(settings.rttMs));
  params.set('loss', String(settings.lossPercent));
  params.set('server', settings.server);
  return `#plan&${params.toString()}`;
}

/** Settings from a shared planner address; undefined when it holds none or they do not parse. */
export function settingsFromHash(hash: string): PlannerSettings | undefined {
  if (!hash.startsWith('#plan&')) return undefined;
  const params = new URLSearchParams(hash.slice('#plan&'.length));
  const bandwidth = Number(params.get('bandwidth'));
  const rtt = Number(params.get('rtt'));
  const loss = Number(params.get('loss') ?? '0');
  const server = params.get('server') ?? 'win2012plus';
  if (!(bandwidth > 0 && rtt > 0 && loss >= 0 && loss < 100) || !(SERVER_PROFILE_IDS as readonly string[]).includes(server)) return undefined;
  const preset = params.get('preset') ?? undefined;
  return { ...(preset && findPreset(preset) ? { preset } : {}), bandwidthBitsPerSecond: bandwidth, rttMs: rtt, lossPercent: loss, server: server as ServerProfileId };
}

export function planCsv(result: PlanResult): string {
  const header = ['link', 'bandwidth_bps', 'rtt_ms', 'loss_rate', 'server', 'client', 'workload', 'op', 'seconds', 'throughput_mbps', 'limited_by'];
  const rows = result.cells.map((cell) => [result.link.label, result.link.bandwidthBitsPerSecond, result.link.rttMs, result.link.lossRate, result.server, cell.client, cell.workload, cell.op, Number(cell.seconds.toFixed(3)), Number(cell.throughputMbps.toFixed(3)), cell.limitedBy]);
  return csvRows([header, ...rows], '\n');
}
