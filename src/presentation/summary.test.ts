import { describe, expect, it } from 'vitest';
import { demoReport } from '../test-support/demo-report.js';
import { SUMMARY_MAX_LINES, ticketSummary } from './summary.js';

describe('the ticket summary (issue 48: the ticket loses the server fix)', () => {
  it('lists every change, by who makes it, each with its effect and command: the server team gets its credits line', () => {
    const report = demoReport();
    const summary = ticketSummary(report);
    const lines = summary.split('\n');
    expect(lines.length).toBeLessThanOrEqual(SUMMARY_MAX_LINES);
    expect(summary).toMatch(/^What to change, by who makes it/m);
    expect(summary).toMatch(/^Your PC: Set robocopy \/MT:n to \d+ in the copy tool: then .* takes .* instead of .*\. Command: robocopy /m);
    expect(summary).toMatch(
      /^Server team: Set smb2 max credits to \d+ on the Samba server: then .* takes .* instead of .*\. Command: smb2 max credits = \d+$/m,
    );
    expect(summary).not.toMatch(/more settings?, with (its|their) effect/);
    // Each change the verdict names, once, with the same effect as the verdict says it.
    for (const change of report.verdict?.changes ?? []) expect(lines.filter((line) => line.includes(change.sentence))).toHaveLength(1);
  });

  it("says the headline fix's effect in the same words as the verdict", () => {
    const report = demoReport();
    const fix = report.verdict?.fix;
    expect(fix?.kind).toBe('change');
    expect(ticketSummary(report)).toContain(fix?.sentence ?? '(none)');
  });

  it("keeps each team's first change where there are more than fit, and counts the rest", () => {
    const report = demoReport();
    const verdict = report.verdict;
    if (!verdict?.changes) throw new Error('no changes');
    const pcChange = verdict.changes.find((change) => change.team === 'pc');
    const serverChange = verdict.changes.find((change) => change.team === 'server');
    if (!pcChange || !serverChange) throw new Error('the demo report names a PC and a server change');
    // Twelve PC changes ahead of the one server change.
    const many = [...Array.from({ length: 12 }, (_, index) => ({ ...pcChange, knob: `knob ${index}`, sentence: `Change ${index}.` })), serverChange];
    const summary = ticketSummary({ ...report, verdict: { ...verdict, changes: many } });
    expect(summary.split('\n').length).toBeLessThanOrEqual(SUMMARY_MAX_LINES);
    expect(summary).toContain(serverChange.sentence);
    expect(summary).toMatch(/\d+ more changes, with their effect, in the full report/);
  });
});
