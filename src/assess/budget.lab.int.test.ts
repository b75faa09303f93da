// The budgeted assessment against the full one on the three WAN lab
// links (52 Mb/s / 75 ms, 80 Mb/s / 45 ms, 155 Mb/s / 32 ms): the same
// workloads, every byte moved in one run, copies stopped once their rate
// settled and the rest projected in the default (60 s) run, directory sets
// projected from the model scaled by the file copies in the --quick (20 s)
// run (issue 15). Prints every copy's projection beside its full time and the
// model's expectation.
// Measured on 52/75 while building it (2026-11-23): copies the budget
// squeezed below what they need were 22-49% off while their projection was a
// straight line through the ramp; with the shorter probe and the file copies
// stopped by time projected as the model scaled by what they moved, all 20
// within 7.8%.
// 155/32 failed twice (2026-11-24) on --quick's pipefill-max directory-set
// write, 15.3% and 15.2% long: the model charged a slow start to a sender
// that had just moved the file over the same connection with BBR, which keeps
// its rate across the idle gap. With the warm sender in the model
// (keepsRateAcrossIdle in src/model/congestion.ts), 2026-11-24: largest
// error 11.7% on 52/75 (default win7-smb2 directory-set read), 11.9% on 80/45,
// 8.1% on 155/32; default runs 56.3, 42.0 and 32.0 s of process (55.1, 41.1,
// 31.3 s of report), --quick 19.6, 14.9 and 13.6 s of process (18.8, 14.3,
// 13.0 s of report); full runs 113.8, 72.6 and 58.0 s.

import { existsSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import type { Report } from '../contract/report.js';
import { assessInLab, READINESS_ARGS } from '../lab/bench.js';
import type { Observation } from '../test-support/lab-fidelity.js';
import { failures, holdBounds, withinRelative } from '../test-support/lab-fidelity.js';
import { labDown, labEndpoints, labUp } from '../lab/wan-lab.js';

const canRunLab = process.platform === 'linux' && process.getuid?.() === 0 && existsSync('/dev/net/tun');
if (!canRunLab) console.warn('SKIPPED: the budgeted assessment lab test needs Linux, root and /dev/net/tun.');

/** Each copy of a budgeted run against the same copy moved whole, printed, as observations held to 15%. */
function compare(label: string, budgeted: Report, full: Report): Observation[] {
  const observations: Observation[] = [];
  for (const copy of budgeted.copyTests) {
    const reference = full.copyTests.find((other) => other.profile === copy.profile && other.op === copy.op && other.workload === copy.workload);
    expect(reference, `${copy.profile} ${copy.op} ${copy.workload} in the full run`).toBeDefined();
    if (!reference) continue;
    const error = (copy.seconds - reference.seconds) / reference.seconds;
    const how = copy.projected
      ? `projected from ${copy.projected.measuredSeconds.toFixed(2)} s (${copy.projected.stoppedBy}, rate from ${copy.projected.rateFrom})`
      : '(whole)';
    const model = full.diagnosis.findings.find(
      (finding) => finding.profile === copy.profile && finding.op === copy.op && finding.workload === copy.workload,
    )?.expectedSeconds;
    console.log(
      `  ${label} ${copy.profile} ${copy.op} ${copy.workload}: ${copy.seconds.toFixed(2)} s ${how} against ${reference.seconds.toFixed(2)} s full (model ${model?.toFixed(2) ?? '?'} s): ${(error * 100).toFixed(1)}%`,
    );
    // Here the "model" column is the full copy's time: what the projection promises to match.
    observations.push({
      cell: `${label} ${copy.profile} ${copy.op} ${copy.workload}`,
      measured: copy.seconds,
      model: reference.seconds,
      unit: 's (full copy)',
      bound: 'within 15% of the full copy',
      holds: Math.abs(error) <= 0.15,
    });
  }
  return observations;
}

describe.skipIf(!canRunLab)('the assessment within its budget, against every byte moved', () => {
  afterAll(async () => {
    await labDown();
  });

  // The three links. Each runs the full assessment (every byte), the default (60 s) and --quick (20 s)
  // of a readiness check (five generations: the budget's hardest case) on the same workloads, and holds every generation's projected time to 15% of its full copy.
  it.each([
    [52, 75],
    [80, 45],
    [155, 32],
  ])(
    'keeps the 60 s and 20 s budgets on %d Mb/s / %d ms, probes within a tenth, and projects every copy within 15% of its full time',
    async (mbps, rttMs) => {
      const state = await labUp({ bandwidthBitsPerSecond: mbps * 1e6, rttMs });
      try {
        const { share, password } = labEndpoints(state);
        // The full run, the default and --quick, every copy held to its full time; a copy that misses
        // is measured again by running the three again (a copy's budget depends on the others').
        const experiment = async (): Promise<Observation[]> => {
          const full = assessInLab(state, share ?? '', password ?? '', ['--full', ...READINESS_ARGS]);
          const { fileBytes, dirsetScale } = full.report.options;
          const sized = [...READINESS_ARGS, '--file-size', `${fileBytes}B`, '--dirset-scale', String(dirsetScale)];
          const runs = [
            { label: 'default', budget: 60, run: assessInLab(state, share ?? '', password ?? '', sized) },
            { label: 'quick', budget: 20, run: assessInLab(state, share ?? '', password ?? '', ['--quick', ...sized]) },
          ];
          console.log(`budget lab ${mbps} Mb/s / ${rttMs} ms: full ${full.seconds.toFixed(1)} s (file ${fileBytes} B, dirset ${dirsetScale})`);
          const observations: Observation[] = [];
          for (const { label, budget, run } of runs) {
            const { report } = run;
            const timing = report.timing;
            console.log(
              `${label}: ${run.seconds.toFixed(1)} s of process, ${timing?.totalSeconds.toFixed(1)} s of report (probe ${timing?.probeSeconds.toFixed(1)}, copies ${timing?.copiesSeconds.toFixed(1)}); probe ${report.probes.bandwidth.mbps.toFixed(1)} Mb/s, ${report.probes.rtt.medianMs.toFixed(1)} ms`,
            );
            observations.push(...compare(label, report, full.report));
            expect(report.options.budgetSeconds).toBe(budget);
            expect(report.copyTests).toHaveLength(20);
            // --quick copies the files only; its directory sets are the model scaled by them.
            if (label === 'quick') expect(report.copyTests.filter((copy) => copy.projected?.stoppedBy === 'not-run')).toHaveLength(10);
            // The budget is the report's: probe, copies, signing check and the reserve for clean-up.
            expect(timing?.totalSeconds ?? Infinity).toBeLessThanOrEqual(budget);
            const probed = report.probes;
            observations.push(
              {
                cell: `${label} probe bandwidth`,
                measured: probed.bandwidth.mbps,
                model: mbps,
                unit: 'Mb/s (line)',
                bound: 'within 10% of the line',
                holds: withinRelative(probed.bandwidth.mbps, mbps, 0.1),
              },
              {
                cell: `${label} probe RTT`,
                measured: probed.rtt.medianMs,
                model: rttMs,
                unit: 'ms (link)',
                bound: 'within 10% of the link',
                holds: withinRelative(probed.rtt.medianMs, rttMs, 0.1),
              },
            );
          }
          expect(runs[0]?.run.report.copyTests.some((copy) => copy.projected)).toBe(true);
          expect(observations).toHaveLength(44);
          return observations;
        };
        expect(failures(await holdBounds(`budget ${mbps} Mb/s, ${rttMs} ms`, experiment))).toEqual([]);
      } finally {
        await labDown(state.id);
      }
      // One pass takes 1.5-3.5 minutes; a copy measured again adds up to four more.
    },
    1_800_000,
  );
});
