// Which layer a prediction names, as distinct from which budget is tightest.
// The model's rates are no surer than its inputs: the lab shows it within 15%
// of real copies, and on a busy machine the hosts' calibration moves by about
// that much from run to run. Where a setting's budget and a floor no setting
// changes (the path, the two machines) are that close, the model cannot say
// which one binds, and changing the setting would buy less than it can
// promise: the floor is named, so the same share names the same layer in
// every run (issue 48: a busy loopback share named hosts or bandwidth, hosts
// or copy pipeline, from one run to the next).

import type { BudgetLayer, LayerBudget } from './in-flight.js';
import { tightestBudget } from './in-flight.js';
import type { Link } from './link.js';

/**
 * What the WAN lab shows the model achieves for every generation (npm run
 * test:lab; its fidelity cells hold 5-15%): two layers' rates closer than
 * this cannot be ranked, and a copy this close to its expectation went as
 * expected (src/model/assessment.ts).
 */
export const MODEL_RESOLUTION = 0.15;

/**
 * Below this round trip a path with measured hosts is this machine's: the
 * probe measures the hosts only on paths under 2 ms (src/probe/host-rates.ts
 * FAST_PATH_RTT_MS), so a busy loopback whose round trip reads 1-2 ms keeps
 * its name; a WAN's tens of milliseconds never do.
 */
const LOOPBACK_RTT_MS = 2;

/**
 * A share on this machine: the hosts were measured with no network between
 * (HostCosts.acrossNetwork absent) and the round trip is a loopback's. Its
 * "bandwidth" is only the fastest the two ends moved anything, the hosts'
 * own pace.
 */
export function onThisMachine(link: Link): boolean {
  return link.hosts !== undefined && link.hosts.acrossNetwork !== true && link.rttMs < LOOPBACK_RTT_MS;
}

/** The layers no setting on either end changes: the path (its line, its queue, its loss) and the two machines. */
const FLOORS: readonly BudgetLayer[] = ['bandwidth', 'bottleneck-queue', 'packet-loss', 'hosts'];

export const isFloor = (layer: string): boolean => (FLOORS as readonly string[]).includes(layer);

/** Two rates the model cannot rank: the higher within its resolution of the lower. */
export const withinResolution = (a: number, b: number): boolean => Math.max(a, b) <= Math.min(a, b) * (1 + MODEL_RESOLUTION);

/**
 * The layer a file's budgets name: the tightest, unless a floor is within the
 * model's resolution of it, and then that floor. On this machine the
 * "bandwidth" is the hosts.
 */
export function namedBudgetLayer(budgets: readonly LayerBudget[], link: Link): BudgetLayer {
  const tightest = tightestBudget(budgets);
  const floors = budgets.filter((budget) => FLOORS.includes(budget.layer));
  const nearFloor =
    FLOORS.includes(tightest.layer) || floors.length === 0
      ? tightest
      : (floors.filter((floor) => withinResolution(floor.bytesPerSecond, tightest.bytesPerSecond)).sort((a, b) => a.bytesPerSecond - b.bytesPerSecond)[0] ??
        tightest);
  return nearFloor.layer === 'bandwidth' && onThisMachine(link) ? 'hosts' : nearFloor.layer;
}
