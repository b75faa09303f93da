import { describe, expect, it } from 'vitest';
import { demoReport } from '../test-support/demo-report.js';
import { formatReport } from '../cli/commands/assess.js';
import { reportHtml } from '../report/html.js';
import { copyStatus, lossEvidence } from './copy-status.js';

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

describe('a slower copy that lost packets says so in its status', () => {
  const own = () => {
    const report = demoReport();
    const finding = report.diagnosis.findings.find((f) => f.profile === 'pipefill-max' && f.op === 'write');
    if (!finding || !report.verdict) throw new Error("no write of Pipefill's own");
    return { finding: { ...finding, verdict: 'slower-than-expected' as const }, verdict: report.verdict };
  };

  it("names a write's resent share, and a read's packets lost on the way from the server", () => {
    const { finding, verdict } = own();
    // The demo link's Pipefill small-files write (lab, 2026-11-27): 10.2% resent after 2,810 drops at the 1-BDP queue.
    expect(copyStatus(finding, verdict, { tcp: { retransmittedFraction: 0.102 } }).text).toBe('slower than expected: TCP resent 10% of its data');
    expect(copyStatus({ ...finding, op: 'read' }, verdict, { tcp: { retransmittedFraction: 0, outOfOrderPackets: 1081 } }).text).toBe(
      "slower than expected: the server's packets were lost (1081 arrived out of order)",
    );
    // A read's own resent share is of its requests, not of the data: it names nothing; a write's data has no out-of-order arrivals here.
    expect(copyStatus({ ...finding, op: 'read' }, verdict, { tcp: { retransmittedFraction: 0.05 } }).text).toBe('slower than expected');
    expect(copyStatus(finding, verdict, { tcp: { retransmittedFraction: 0, outOfOrderPackets: 40 } }).text).toBe('slower than expected');
  });

  it('says nothing of loss below 1% resent, nor for a copy as fast as the model', () => {
    const { finding, verdict } = own();
    expect(copyStatus(finding, verdict, { tcp: { retransmittedFraction: 0.004 } }).text).toBe('slower than expected');
    expect(copyStatus({ ...finding, verdict: 'as-expected' }, verdict, { tcp: { retransmittedFraction: 0.2 } }).text).toBe('as expected');
  });
});

describe('lost packets on a share on this machine', () => {
  it('are never told: there is no path to lose them on', () => {
    const report = demoReport();
    const index = report.copyTests.findIndex((copy) => copy.profile === 'pipefill-max');
    const lossy = {
      ...report,
      copyTests: report.copyTests.map((copy) => ({ ...copy, tcp: { ...copy.tcp, retransmittedFraction: 0.1, outOfOrderPackets: 24 } })),
    };
    expect(lossEvidence(lossy, index)?.tcp?.retransmittedFraction).toBe(0.1);
    const onThisMachine = { ...lossy, crypto: { rates: {}, serverOnThisMachine: true } };
    expect(lossEvidence(onThisMachine, index)).toBeUndefined();
  });
});
