// A queue on the path that grows under load, as the verdict says it (issue
// 52): the round trip while the probe filled the link beside the idle one
// (src/probe/rtt.ts echoesUnderLoad), what that costs the person's own
// client's synchronous steps while any copy fills the link, and what the
// network team changes. Pure.

import type { ClientProfileId } from '../model/client-profiles.js';
import { predict } from '../model/predict.js';
import type { QueueUnderLoad } from '../model/queue-under-load.js';
import { queueUnderLoad } from '../model/queue-under-load.js';
import { formatBytes, formatDuration, formatRate } from '../model/units.js';
import { observationsFromReport } from './recommend.js';
import type { Report } from './report.js';
import { modelLinkOf } from './report.js';

/** The copy a queue hurts most, in words a person knows: the 1 GB folder of small files (src/model/effect-workloads.ts). */
const SMALL_FILES = 'tr3869-dirset';

/** The bloated queue, with its sentence for the verdict's path line; undefined where the probe saw none (or no loaded round trips). */
export function queueOf(report: Report, client: ClientProfileId): { readonly queue: QueueUnderLoad; readonly sentence: string } | undefined {
  const loaded = report.probes.rtt.loaded;
  if (!loaded || report.crypto?.serverOnThisMachine) return undefined;
  const link = modelLinkOf(report);
  const queue = queueUnderLoad(link.rttMs, loaded.medianMs, link.bandwidthBitsPerSecond);
  if (!queue.bloated) return undefined;
  const folderSeconds = (rttMs: number) => {
    try {
      return predict({
        client,
        server: report.options.server,
        op: 'write',
        workload: SMALL_FILES,
        link: { ...link, rttMs },
        observations: observationsFromReport(report, client),
      }).seconds;
    } catch {
      return undefined;
    }
  };
  const idle = folderSeconds(queue.idleMs);
  const busy = folderSeconds(queue.loadedMs);
  const cost =
    idle !== undefined && busy !== undefined
      ? ` While a copy fills the link, writing the 1 GB folder of small files takes ${formatDuration(busy * 1000)} instead of ${formatDuration(idle * 1000)}, and every request of everyone on the link waits ${formatDuration(queue.queueMs)} longer.`
      : ` While a copy fills the link, every request of everyone on it waits ${formatDuration(queue.queueMs)} longer.`;
  return {
    queue,
    sentence:
      `Under load the round trip grew from ${formatDuration(queue.idleMs)} to ${formatDuration(queue.loadedMs)} as the probe filled the link: a queue on the path held ` +
      `${formatDuration(queue.queueMs)} of data (${formatBytes(queue.queueBytes)} at ${formatRate(link.bandwidthBitsPerSecond)}), more than the link needs.${cost}` +
      " For the network team: a queue that keeps itself short on the router before the slow link (fq_codel or CAKE), a smaller buffer there, or QoS that puts SMB's small requests ahead of bulk data.",
  };
}
