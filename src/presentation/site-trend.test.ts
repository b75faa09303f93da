import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Report } from '../contract/report.js';
import { ReportSchema } from '../contract/report.js';
import { changesBetween } from './site-trend.js';

const fixture = (name: string): Report => ReportSchema.parse(JSON.parse(readFileSync(new URL(`../report/fixtures/${name}.json`, import.meta.url), 'utf8')));

describe('what changed at a site', () => {
  it('says what changed in words, and leaves out what is only noise', () => {
    const before = fixture('lab-52mbit-75ms');
    const after = fixture('lab-155mbit-32ms');
    const changes = changesBetween(before, after);
    // Rates as everything else prints them (formatRate), not a float's digits.
    expect(changes).toContain('bandwidth now 150 Mb/s, was 51.7 Mb/s');
    expect(changes).toContain(`round trip now ${after.probes.rtt.medianMs.toFixed(1)} ms, was ${before.probes.rtt.medianMs.toFixed(1)}`);
    // Each copy by its plain name, its rate as copy dialogs show it.
    expect(
      changes.some((change) =>
        /^[A-Z][\w ./()-]+, (large file|small files) (read|write): \d+\.\dx (faster|slower) than the run before \([\d.]+ [kMG]B\/s \([\d.]+ [kMG]b\/s\), was /.test(
          change,
        ),
      ),
    ).toBe(true);
    expect(changes.join('\n')).not.toMatch(/\b(win\d+|xp)-smb\d|pipefill-max|tr3869/);
    expect(changesBetween(before, before)).toEqual([]);

    // A server that went from 16 credits to 512 is news; 8320 against 8448 is a session's ramp.
    const withCredits = (report: Report, credits: number): Report => ({
      ...report,
      copyTests: report.copyTests.map((test) => ({ ...test, negotiated: { ...test.negotiated, creditsGrantedMax: credits } })),
    });
    expect(changesBetween(withCredits(before, 16), withCredits(before, 512))).toEqual(['credits now 512, was 16']);
    expect(changesBetween(withCredits(before, 8320), withCredits(before, 8448))).toEqual([]);
  });
});
