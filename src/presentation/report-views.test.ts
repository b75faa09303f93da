import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import type { Report } from '../contract/report.js';
import { ReportSchema } from '../contract/report.js';
import { overBudgetNote, projectionText } from './report-views.js';
import { formatReport } from '../cli/commands/assess.js';
import { reportHtml } from '../report/html.js';
import { escapeXml } from '../report/svg.js';

describe('projectionText', () => {
  const base = { measuredBytes: 12e6, measuredSeconds: 1.4, filesTouched: 1, rateMbps: 41.2, rateRelativeHalfWidth: 0.03, lowSeconds: 5.9, highSeconds: 6.6 };

  it('says what a stopped copy measured and how its rate was read', () => {
    expect(projectionText({ ...base, stoppedBy: 'settled', rateFrom: 'this-copy' })).toBe(
      "projected from 12.0 MB in 1.40 s, 1 file (rate settled at 41.2 Mb/s ± 3%); 5.90-6.60 s at the rate's spread",
    );
    expect(projectionText({ ...base, stoppedBy: 'time', rateFrom: 'this-copy', rateRelativeHalfWidth: null, highSeconds: null })).toMatch(
      /slot ran out before the rate settled; 41\.2 Mb\/s while data moved\); no range can be given$/,
    );
  });

  it("says how a time-stopped copy's model-scaled projection was made", () => {
    const text = projectionText({
      ...base,
      stoppedBy: 'time',
      rateFrom: 'model-scaled',
      modelSeconds: 1.4,
      modelScale: 0.98,
      rateRelativeHalfWidth: null,
      lowSeconds: 1.37,
      highSeconds: null,
    });
    expect(text).toBe(
      "projected from 12.0 MB in 1.40 s, 1 file (slot ran out before the rate settled; the model's 1.40 s for the whole x 0.98, this copy's time over the model's for what it moved); no range can be given",
    );
  });

  it('says how a folder stopped after its first files was projected: the model scaled by those files, with no slot to blame', () => {
    const text = projectionText({
      ...base,
      measuredBytes: 5.05e6,
      measuredSeconds: 1.25,
      filesTouched: 2,
      stoppedBy: 'settled',
      rateFrom: 'model-scaled',
      modelSeconds: 5.11,
      modelScale: 1.06,
      rateRelativeHalfWidth: null,
      lowSeconds: 5.4,
      highSeconds: null,
    });
    expect(text).toBe(
      "projected from 5.05 MB in 1.25 s, 2 files (the model's 5.11 s for the whole x 1.06, this copy's time over the model's for what it moved); no range can be given",
    );
  });

  it('says plainly when no copy of the workload ran, and how the model was scaled', () => {
    const notRun = { ...base, stoppedBy: 'not-run' as const, measuredBytes: 0, measuredSeconds: 0, filesTouched: 0, rateRelativeHalfWidth: null };
    expect(projectionText({ ...notRun, rateFrom: 'model-scaled', modelSeconds: 3.36, modelScale: 0.96, lowSeconds: 3.23, highSeconds: null })).toBe(
      "projected, not run (quick): the model's 3.36 s for it x 0.96, the same generation's file copy's time over the model's; no range can be given",
    );
    expect(projectionText({ ...notRun, rateFrom: 'model-scaled', modelSeconds: 3.36, modelScale: 1.2, lowSeconds: 3.9, highSeconds: 4.3 })).toMatch(
      /; 3\.90-4\.30 s at the file copy's spread$/,
    );
  });

  it('reads a report from before the model-scaled projection', () => {
    const text = projectionText({ ...base, stoppedBy: 'not-run', rateFrom: 'file-copy', measuredBytes: 0, measuredSeconds: 0, filesTouched: 0 });
    expect(text).toMatch(/^projected, not run \(quick\): each file's round trips as the file copy measured them/);
    expect(text).toContain('41.2 Mb/s ± 3%');
    expect(text).not.toContain('0.00 MB');
  });
});

describe('a run past its budget', () => {
  // The lab's lossy quick run (50 Mb/s, 40 ms, 1% loss, BBR server): its copies as measured, its budget 20 s.
  const report = ReportSchema.parse(JSON.parse(readFileSync(new URL('../report/fixtures/lab-50mbit-40ms-loss1-bbr-quick.json', import.meta.url), 'utf8')));
  const timed = (totalSeconds: number): Report => ({
    ...report,
    options: { ...report.options, budgetSeconds: 20 },
    timing: { probeSeconds: 5, setUpSeconds: 0.4, copiesSeconds: totalSeconds - 7.4, checkSeconds: 2, totalSeconds },
  });

  it('says how long it took, past which budget, and the copy that ran longest', () => {
    const note = overBudgetNote(timed(33.4));
    expect(note).toMatch(
      /^This run took 33\.4 s, past its 20 s budget; the longest copy, [^,]+, large file write, ran [\d.]+ s: a copy stops only once it has shown a rate/,
    );
    // The longest is one that ran: a quick run's folders, projected and not copied, are not copies that took time.
    expect(note).not.toMatch(/small files/);
  });

  it('is the same sentence in the CLI and the HTML/PDF report', () => {
    const note = overBudgetNote(report) ?? '';
    // The fixture as it was kept: 49.0 s of its 20.
    expect(note).toMatch(/^This run took 49 s, past its 20 s budget;/);
    expect(formatReport(report).split('\n')).toContain(note);
    expect(reportHtml(report)).toContain(escapeXml(note));
  });

  it("says nothing within the budget and the end's own few percent, or where the run had none", () => {
    expect(overBudgetNote(timed(21.5))).toBeUndefined();
    expect(overBudgetNote({ ...timed(40), options: { ...report.options, budgetSeconds: null } })).toBeUndefined();
    expect(overBudgetNote({ ...timed(40), timing: undefined })).toBeUndefined();
  });
});
