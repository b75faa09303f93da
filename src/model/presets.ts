// Named links for the what-if planner and readiness reviews, from published
// measurements: ../shared/reference/branch-links.md (Microsoft branch-office
// survey, 2008, Pinkerton's SDC talk) and the TR-3869 emulated links.

import type { Link } from './link.js';
import { NAMED_RATES_BPS } from './units.js';

/**
 * A named link. Its `link.bufferBytes` is the bottleneck queue where the
 * source gives one; none of these surveys does, so each takes the model's
 * default of one BDP (`bufferBytesOf`), and the planner's buffer choice and
 * `--buffer` change it.
 */
export interface LinkPreset {
  readonly id: string;
  readonly label: string;
  readonly link: Link;
  readonly source: string;
}

const BRANCH_SOURCE = 'Microsoft branch-office measurements, 2008 (branch-links.md)';
const TR3869_SOURCE = 'NetApp TR-3869 emulated WAN (client-behaviour.md)';

/** Mean branch bandwidth (Mb/s) per region: branch to nearest data centre. */
const BRANCH_MEAN_MBPS = { 'north-america': 14, europe: 33, asia: 26, 'south-america': 5.5 } as const;
/** Mean continental RTT (ms); South America has no continental row in the survey. */
const CONTINENTAL_MEAN_RTT_MS = { 'north-america': 108, europe: 109, asia: 163 } as const;
/** Mean intercontinental RTT (ms): branch to furthest data centre. */
const INTERCONTINENTAL_MEAN_RTT_MS = { 'north-america': 311, europe: 466, asia: 415, 'south-america': 615 } as const;

const REGION_LABELS: Readonly<Record<keyof typeof BRANCH_MEAN_MBPS, string>> = {
  'north-america': 'North America',
  europe: 'Europe',
  asia: 'Asia',
  'south-america': 'South America',
};

function branchPresets(): LinkPreset[] {
  const presets: LinkPreset[] = [];
  for (const [region, rtt] of Object.entries(CONTINENTAL_MEAN_RTT_MS) as [keyof typeof CONTINENTAL_MEAN_RTT_MS, number][]) {
    presets.push({
      id: `${region}-continental`,
      label: `${REGION_LABELS[region]} branch, continental (mean)`,
      link: { bandwidthBitsPerSecond: BRANCH_MEAN_MBPS[region] * 1e6, rttMs: rtt },
      source: BRANCH_SOURCE,
    });
  }
  for (const [region, rtt] of Object.entries(INTERCONTINENTAL_MEAN_RTT_MS) as [keyof typeof INTERCONTINENTAL_MEAN_RTT_MS, number][]) {
    presets.push({
      id: `${region}-intercontinental`,
      label: `${REGION_LABELS[region]} branch, intercontinental (mean)`,
      link: { bandwidthBitsPerSecond: BRANCH_MEAN_MBPS[region] * 1e6, rttMs: rtt },
      source: BRANCH_SOURCE,
    });
  }
  return presets;
}

function tr3869Presets(): LinkPreset[] {
  const links: [string, string, number][] = [
    ['oc1', 'OC-1', NAMED_RATES_BPS['oc1'] ?? 51.84e6],
    ['oc3', 'OC-3', NAMED_RATES_BPS['oc3'] ?? 155.52e6],
    ['oc12', 'OC-12', NAMED_RATES_BPS['oc12'] ?? 622.08e6],
    ['gbe', 'GbE', NAMED_RATES_BPS['gbe'] ?? 1e9],
  ];
  return links.flatMap(([id, name, bps]) =>
    [32, 75].map((rttMs) => ({
      id: `tr3869-${id}-${rttMs}ms`,
      label: `TR-3869 ${name}, ${rttMs} ms`,
      link: { bandwidthBitsPerSecond: bps, rttMs },
      source: TR3869_SOURCE,
    })),
  );
}

export const LINK_PRESETS: readonly LinkPreset[] = [...branchPresets(), ...tr3869Presets()];

/** The planner's starting point: the typical European branch, whose BDP (0.45 MB) is near the survey's ~1 MB rule of thumb. */
export const DEFAULT_PRESET_ID = 'europe-continental';

export function findPreset(id: string): LinkPreset | undefined {
  return LINK_PRESETS.find((preset) => preset.id === id.trim().toLowerCase());
}
