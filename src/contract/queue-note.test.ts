// A queue on the path that grows under load, in the verdict (issue 52).

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Report } from './report.js';
import { modelLinkOf, ReportSchema } from './report.js';
import { predict } from '../model/predict.js';
import { formatDuration } from '../model/units.js';
import { queueOf } from './queue-note.js';
import { buildVerdict } from '../presentation/verdict.js';
import { observationsFromReport, recommendFromInput } from './recommend.js';
import { ticketSummary } from '../presentation/summary.js';

const fixture = (name: string): Report => ReportSchema.parse(JSON.parse(readFileSync(new URL(`../report/fixtures/${name}.json`, import.meta.url), 'utf8')));

/** The report with the probe's ECHOs under load at `loadedMs` (median). */
function underLoad(report: Report, loadedMs: number): Report {
  const loaded = { samples: 40, minMs: loadedMs * 0.9, medianMs: loadedMs, p95Ms: loadedMs * 1.05, jitterMs: 2 };
  return { ...report, verdict: undefined, advice: undefined, probes: { ...report.probes, rtt: { ...report.probes.rtt, loaded } } };
}

describe('a queue that grows under load', () => {
  const lab = fixture('lab-52mbit-75ms');
  const idle = lab.pathModel?.rttMs ?? lab.probes.rtt.medianMs;

  it('is named with the round trips, the data it holds, its cost to the small-files copy and the fix', () => {
    const report = underLoad(lab, idle + 300);
    const found = queueOf(report, 'win11-24h2');
    expect(found?.queue.bloated).toBe(true);
    expect(found?.queue.queueMs).toBeCloseTo(300, 6);
    expect(found?.sentence).toMatch(
      /^Under load the round trip grew from 7\d(\.\d)? ms to 3\d\d ms as the probe filled the link: a queue on the path held 300 ms of data \(1\.9\d MB at 5\d\.\d Mb\/s\)/,
    );
    expect(found?.sentence).toMatch(
      /writing the 1 GB folder of small files takes .* instead of .*, and every request of everyone on the link waits 300 ms longer/,
    );
    expect(found?.sentence).toMatch(/fq_codel or CAKE/);
  });

  it('costs the small-files copy what the model gives at the loaded round trip', () => {
    const found = queueOf(underLoad(lab, idle + 300), 'win11-24h2');
    const [busy, quiet] = /takes (.+?) instead of (.+?),/.exec(found?.sentence ?? '')?.slice(1) ?? [];
    const folder = (rttMs: number) =>
      formatDuration(
        predict({
          client: 'win11-24h2',
          server: lab.options.server,
          op: 'write',
          workload: 'tr3869-dirset',
          link: { ...modelLinkOf(lab), rttMs },
          observations: observationsFromReport(lab, 'win11-24h2'),
        }).seconds * 1000,
      );
    expect(busy).toBe(folder(idle + 300));
    expect(quiet).toBe(folder(idle));
    expect(busy).not.toEqual(quiet);
  });

  it('says it on the path line, in every view that prints the verdict and in the ticket', () => {
    const report = underLoad(lab, idle + 300);
    const verdict = buildVerdict(report, recommendFromInput({ report }));
    expect(verdict.lines[1]).toMatch(/Under load the round trip grew/);
    expect(ticketSummary({ ...report, verdict })).toMatch(/Under load the round trip grew/);
  });

  it('is not named where the queue adds less than the path itself or under 50 ms', () => {
    expect(queueOf(underLoad(lab, idle + 40), 'win11-24h2')).toBeUndefined();
    expect(queueOf(underLoad(lab, idle * 1.9), 'win11-24h2')).toBeUndefined();
    expect(queueOf(lab, 'win11-24h2')).toBeUndefined();
  });
});
