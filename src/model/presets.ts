// Named links for the what-if planner and readiness reviews, from published
// measurements: the Microsoft branch-office survey (2008, Pinkerton's SDC
// talk; reference/branch-links.json) and the TR-3869 emulated links.

import type { Link } from './link.js';
import { NAMED_RATES_BPS } from './units.js';
import branchLinks from './reference/branch-links.json' with { type: 'json' };

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

const BRANCH_SOURCE = 'Microsoft branch-office measurements, 2008 (Pinkerton, SDC 2008)';
const TR3869_SOURCE = 'NetApp TR-3869 emulated WAN (2012)';

interface BranchRegion {
  readonly label: string;
  readonly meanMbps: number;
  /** Null where the survey has no continental row (South America). */
  readonly continentalMeanRttMs: number | null;
  readonly intercontinentalMeanRttMs: number;
}

const BRANCH_REGIONS: Readonly<Record<string, BranchRegion>> = branchLinks.regions;

function branchPresets(): LinkPreset[] {
  const regions = Object.entries(BRANCH_REGIONS);
  const continental = regions.flatMap(([region, { label, meanMbps, continentalMeanRttMs }]) =>
    continentalMeanRttMs === null
      ? []
      : [
          {
            id: `${region}-continental`,
            label: `${label} branch, continental (mean)`,
            link: { bandwidthBitsPerSecond: meanMbps * 1e6, rttMs: continentalMeanRttMs },
            source: BRANCH_SOURCE,
          },
        ],
  );
  const intercontinental = regions.map(([region, { label, meanMbps, intercontinentalMeanRttMs }]) => ({
    id: `${region}-intercontinental`,
    label: `${label} branch, intercontinental (mean)`,
    link: { bandwidthBitsPerSecond: meanMbps * 1e6, rttMs: intercontinentalMeanRttMs },
    source: BRANCH_SOURCE,
  }));
  return [...continental, ...intercontinental];
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
