import { describe, expect, it } from 'vitest';
import { demoReport } from '../test-support/demo-report.js';
import { formatReport } from '../cli/commands/assess.js';
import { reportHtml } from '../report/html.js';
import { copyStatus } from './copy-status.js';

describe("a copy's status (issue 48: green means nothing to fix)", () => {
  it("marks the person's copies a named setting would speed up as held back, by that setting, even where they matched the model", () => {
    const report = demoReport();
    const verdict = report.verdict;
    if (!verdict) throw new Error('no verdict');
    const largeWrite = report.diagnosis.findings.find((f) => f.profile === verdict.client && f.op === 'write' && f.workload.startsWith('file:'));
    if (!largeWrite) throw new Error('no large-file write of the client');
    // The credits hold the large-file write back: whatever the model said, it is not green.
    for (const modelSaid of ['as-expected', 'slower-than-expected'] as const)
      expect(copyStatus({ ...largeWrite, verdict: modelSaid }, verdict)).toEqual({ kind: 'held-back', text: 'held back: smb2 max credits' });
    const smallWrite = report.diagnosis.findings.find((f) => f.profile === verdict.client && f.op === 'write' && !f.workload.startsWith('file:'));
    if (!smallWrite) throw new Error('no small-files write of the client');
    expect(copyStatus(smallWrite, verdict).text).toBe('held back: robocopy /MT:n');
    // Pipefill's own pipeline is no client a setting is named for: its row keeps the model's word.
    const own = report.diagnosis.findings.find((f) => f.profile === 'pipefill-max');
    if (!own) throw new Error("no copy of Pipefill's own");
    expect(copyStatus(own, verdict)).toEqual({ kind: own.verdict, text: own.verdict.replace(/-/g, ' ') });
  });

  it('reads the same in the report and the CLI', () => {
    const report = demoReport();
    expect(reportHtml(report)).toContain('held back: smb2 max credits');
    expect(formatReport(report)).toContain('held back: smb2 max credits');
  });

  it("is the model's word where the verdict names no setting for the copy (a report from before, or nothing to change)", () => {
    const report = demoReport();
    const finding = report.diagnosis.findings[0];
    if (!finding) throw new Error('no finding');
    expect(copyStatus(finding, { client: finding.profile })).toEqual({ kind: finding.verdict, text: finding.verdict.replace(/-/g, ' ') });
  });
});
