// The Planner view's state: a preset or slider values in, the contract's
// plan (the pure model, run in the page) out; the link encoded in the page
// address so a plan can be shared; the table as CSV. Pure.

import type { PlanInput, PlanResult } from '../../../../src/contract/plan.js';
import { csvRows } from '../../../../src/presentation/csv.js';
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
  /** The bottleneck's buffer as a share of the BDP (absent: 1, the model's default). */
  readonly bufferShare?: number;
  /** Signing or encryption (absent: what the pair negotiates), and the session's connections (absent: 1). */
  readonly security?: PlannerSecurity;
  readonly channels?: number;
  /** The path MTU: a tunnel's (absent: Ethernet's 1500). */
  readonly mtuBytes?: number;
}

/** The planner's choices of protection: what the pair negotiates, or signing / encryption for everyone. */
export const PLANNER_SECURITY = ['auto', 'signing', 'encryption'] as const;
export type PlannerSecurity = (typeof PLANNER_SECURITY)[number];
/** Buffer sizes a branch router is likely to have, as shares of the path's BDP. */
export const PLANNER_BUFFER_SHARES = [1, 0.5, 0.25, 0.125, 0] as const;
export const PLANNER_CHANNELS = [1, 2, 4, 8] as const;
/** The tunnels the planner offers, by their MTU (src/model/path-mtu.ts TUNNEL_MTUS); 1500 is none. */
export const PLANNER_MTUS = [1500, 1492, 1476, 1420] as const;
export const PLANNER_TUNNEL_LABELS: Readonly<Record<(typeof PLANNER_MTUS)[number], string>> = {
  1500: 'None (Ethernet)',
  1492: 'PPPoE',
  1476: 'GRE',
  1420: 'WireGuard',
};

/** The session choices that differ from the defaults, as the contract takes them. */
function sessionInput(settings: PlannerSettings): Partial<PlanInput> {
  return {
    ...(settings.bufferShare !== undefined && settings.bufferShare !== 1 ? { buffer: `${settings.bufferShare}bdp` } : {}),
    ...(settings.security !== undefined && settings.security !== 'auto' ? { security: settings.security } : {}),
    ...(settings.channels !== undefined && settings.channels !== 1 ? { channels: settings.channels } : {}),
    ...(settings.mtuBytes !== undefined && settings.mtuBytes !== 1500 ? { mtu: String(settings.mtuBytes) } : {}),
  };
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
  const custom: PlannerSettings = { ...settings };
  delete (custom as { preset?: string }).preset;
  return custom;
}

/** The contract's plan input for these settings: a preset as is, or the values. */
export function planInput(settings: PlannerSettings): PlanInput {
  if (settings.preset)
    return {
      preset: settings.preset,
      server: settings.server,
      ...(settings.lossPercent > 0 ? { loss: `${settings.lossPercent}%` } : {}),
      ...sessionInput(settings),
    };
  return {
    bandwidth: `${settings.bandwidthBitsPerSecond}bit`,
    rtt: `${settings.rttMs}ms`,
    loss: `${settings.lossPercent}%`,
    server: settings.server,
    ...sessionInput(settings),
  };
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
  if (settings.bufferShare !== undefined && settings.bufferShare !== 1) params.set('buffer', String(settings.bufferShare));
  if (settings.security !== undefined && settings.security !== 'auto') params.set('security', settings.security);
  if (settings.channels !== undefined && settings.channels !== 1) params.set('channels', String(settings.channels));
  if (settings.mtuBytes !== undefined && settings.mtuBytes !== 1500) params.set('mtu', String(settings.mtuBytes));
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
  // Session choices outside the planner's own lists are dropped, not trusted: the address is anyone's text.
  const buffer = Number(params.get('buffer') ?? '1');
  const security = params.get('security') ?? 'auto';
  const channels = Number(params.get('channels') ?? '1');
  const mtu = Number(params.get('mtu') ?? '1500');
  return {
    ...(preset && findPreset(preset) ? { preset } : {}),
    bandwidthBitsPerSecond: bandwidth,
    rttMs: rtt,
    lossPercent: loss,
    server: server as ServerProfileId,
    ...((PLANNER_BUFFER_SHARES as readonly number[]).includes(buffer) && buffer !== 1 ? { bufferShare: buffer } : {}),
    ...((PLANNER_SECURITY as readonly string[]).includes(security) && security !== 'auto' ? { security: security as PlannerSecurity } : {}),
    ...((PLANNER_CHANNELS as readonly number[]).includes(channels) && channels !== 1 ? { channels } : {}),
    ...((PLANNER_MTUS as readonly number[]).includes(mtu) && mtu !== 1500 ? { mtuBytes: mtu } : {}),
  };
}

export function planCsv(result: PlanResult): string {
  const header = [
    'link',
    'bandwidth_bps',
    'rtt_ms',
    'loss_rate',
    'buffer_bytes',
    'server',
    'channels',
    'client',
    'protection',
    'workload',
    'op',
    'seconds',
    'throughput_mbps',
    'limited_by',
  ];
  const rows = result.cells.map((cell) => [
    result.link.label,
    result.link.bandwidthBitsPerSecond,
    result.link.rttMs,
    result.link.lossRate,
    Math.round(result.link.bufferBytes),
    result.server,
    result.channels,
    cell.client,
    cell.protection,
    cell.workload,
    cell.op,
    Number(cell.seconds.toFixed(3)),
    Number(cell.throughputMbps.toFixed(3)),
    cell.limitedBy,
  ]);
  return csvRows([header, ...rows], '\n');
}
