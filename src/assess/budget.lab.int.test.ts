// The budgeted assessment against the full one on the WAN lab's slowest,
// longest link (52 Mb/s, 75 ms): the same workloads, every byte moved in one
// run, copies stopped once their rate settled and the rest projected in the
// other (issue 15). Prints every copy's projection beside its full time.
// Measured while building it (2026-11-23): the full run 119-123 s, the
// default budget 57-60 s of report (60-63 s of process). Copies the budget
// squeezed below what they need were 22-49% off while their projection was
// a straight line through the ramp (win7-smb1's 1 MiB read, XP's directory-
// set read); with the shorter probe and the file copies stopped by time
// projected as the model scaled by what they moved, all 20 within 7.8%.
// --quick beside them: its directory sets as the model scaled by the file
// copies, all 20 within 11.7%. Within its 20 s since the clean-up, the
// probe's round trips, the signing check's session and the writes' folders
// were moved off the copies' path or cut (19.9-20.0 s of process, 19.0-19.1 s
// of report, 2026-11-23).

import { existsSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { assessInLab } from '../lab/bench.js';
import { labDown, labEndpoints, labUp } from '../lab/wan-lab.js';

const canRunLab = process.platform === 'linux' && process.getuid?.() === 0 && existsSync('/dev/net/tun');
if (!canRunLab) console.warn('SKIPPED: the budgeted assessment lab test needs Linux, root and /dev/net/tun.');


describe.skipIf(!canRunLab)('the assessment within its budget, against every byte moved', () => {
  afterAll(async () => {
    await labDown();
  });

  it('keeps the default 60 s budget on 52 Mb/s / 75 ms and projects each copy near its full time', async () => {
    const state = await labUp({ bandwidthBitsPerSecond: 52e6, rttMs: 75 });
    try {
      const { share, password } = labEndpoints(state);
      const full = assessInLab(state, share ?? '', password ?? '', ['--full']);
      const { fileBytes, dirsetScale } = full.report.options;
      const budgeted = assessInLab(state, share ?? '', password ?? '', ['--file-size', `${fileBytes}B`, '--dirset-scale', String(dirsetScale)]);
      const { report } = budgeted;
      console.log(`budget lab 52 Mb/s / 75 ms: full ${full.seconds.toFixed(1)} s; default ${budgeted.seconds.toFixed(1)} s (report ${report.timing?.totalSeconds.toFixed(1)} s: probe ${report.timing?.probeSeconds.toFixed(1)}, copies ${report.timing?.copiesSeconds.toFixed(1)}); probe ${report.probes.bandwidth.mbps.toFixed(1)} Mb/s, ${report.probes.rtt.medianMs.toFixed(1)} ms`);
      const errors: number[] = [];
      for (const copy of report.copyTests) {
        const reference = full.report.copyTests.find((other) => other.profile === copy.profile && other.op === copy.op && other.workload === copy.workload);
        expect(reference, `${copy.profile} ${copy.op} ${copy.workload} in the full run`).toBeDefined();
        if (!reference) continue;
        const error = (copy.seconds - reference.seconds) / reference.seconds;
        errors.push(Math.abs(error));
        console.log(`  ${copy.profile} ${copy.op} ${copy.workload}: ${copy.seconds.toFixed(2)} s${copy.projected ? ` projected from ${copy.projected.measuredSeconds.toFixed(2)} s (${copy.projected.stoppedBy}, rate from ${copy.projected.rateFrom})` : ' (whole)'} against ${reference.seconds.toFixed(2)} s full: ${(error * 100).toFixed(1)}%`);
      }
      expect(report.options.budgetSeconds).toBe(60);
      expect(report.copyTests.some((copy) => copy.projected)).toBe(true);
      // The budget is the report's: probe, copies, signing check and the reserve for clean-up. A copy past its
      // slot still finishes the request in flight and its file's closing round trips: up to a few seconds over.
      expect(report.timing?.totalSeconds ?? Infinity).toBeLessThanOrEqual(63);
      expect(budgeted.seconds).toBeLessThan(full.seconds * 0.65);
      expect(Math.abs(report.probes.bandwidth.mbps - 52) / 52).toBeLessThanOrEqual(0.1);
      expect(Math.abs(report.probes.rtt.medianMs - 75) / 75).toBeLessThanOrEqual(0.1);
      // The issue's 15%, for all but one copy (one run of this test has been seen, all within 7.8%: a busy
      // machine's copy may stray), and no copy twice as far.
      expect(errors.filter((error) => error > 0.15).length).toBeLessThanOrEqual(1);
      expect(Math.max(...errors)).toBeLessThanOrEqual(0.3);

      // --quick on the same link and sizes, within its 20 s like the shorter links (assess.lab.int.test.ts).
      // Its directory sets are the model's times scaled by the same generation's file copy; all 20 within
      // 11.7% of the full copies in two runs since the lab's server sends with CUBIC, as the samba profile
      // assumes (with the host's BBR, XP's reads ran 13-25% behind the model and a stopped copy saw only
      // the quicker start of that).
      const quick = assessInLab(state, share ?? '', password ?? '', ['--quick', '--file-size', `${fileBytes}B`, '--dirset-scale', String(dirsetScale)]);
      console.log(`quick 52 Mb/s / 75 ms: ${quick.seconds.toFixed(1)} s of process, ${quick.report.timing?.totalSeconds.toFixed(1)} s of report`);
      const quickErrors: number[] = [];
      for (const copy of quick.report.copyTests) {
        const reference = full.report.copyTests.find((other) => other.profile === copy.profile && other.op === copy.op && other.workload === copy.workload);
        if (reference) quickErrors.push(Math.abs(copy.seconds - reference.seconds) / reference.seconds);
        if (reference) console.log(`  quick ${copy.profile} ${copy.op} ${copy.workload}: ${copy.seconds.toFixed(2)} s (${copy.projected?.stoppedBy ?? 'whole'}) against ${reference.seconds.toFixed(2)} s full: ${(((copy.seconds - reference.seconds) / reference.seconds) * 100).toFixed(1)}%`);
      }
      expect(quick.report.options.budgetSeconds).toBe(20);
      expect(quick.report.timing?.totalSeconds ?? Infinity).toBeLessThanOrEqual(21);
      expect(quickErrors).toHaveLength(20);
      // As the default run: the issue's 15% for all but one copy, none twice as far.
      expect(quickErrors.filter((error) => error > 0.15).length).toBeLessThanOrEqual(1);
      expect(Math.max(...quickErrors)).toBeLessThanOrEqual(0.3);
    } finally {
      await labDown(state.id);
    }
  }, 600_000);
});
