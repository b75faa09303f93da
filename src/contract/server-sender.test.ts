// The server's sender as a report's reads showed it (pathModel.serverSender) reaches every view that models the
// server again from the report: the advice, the what-if, the ticket's figures.

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Report } from './report.js';
import { ReportSchema } from './report.js';
import { observationsFromReport, recommendFromInput } from './recommend.js';

const lab = ReportSchema.parse(JSON.parse(readFileSync(new URL('../report/fixtures/lab-52mbit-75ms.json', import.meta.url), 'utf8')));
const lossy = (serverSender?: 'rate-based'): Report => ({
  ...lab,
  verdict: undefined,
  advice: undefined,
  pathModel: {
    bandwidthBitsPerSecond: lab.pathModel?.bandwidthBitsPerSecond ?? 52e6,
    rttMs: lab.pathModel?.rttMs ?? 75,
    bandwidthFrom: 'probe',
    lossRate: 0.01,
    ...(serverSender ? { serverSender } : {}),
  },
});

describe("the server's sender in a report", () => {
  it('is an observation of the report where its reads showed it, and only there', () => {
    expect(observationsFromReport(lossy('rate-based')).serverSender).toBe('rate-based');
    expect(observationsFromReport(lossy())).not.toHaveProperty('serverSender');
  });

  it("has the advice expect the reads as a rate-based sender sends them through the path's loss", () => {
    const before = (report: Report, test: string) => recommendFromInput({ report }).combined.find((entry) => entry.test === test)?.before ?? NaN;
    const test = 'read file:1GB';
    // Mathis holds a CUBIC sender near 2 Mb/s at 1% and 75 ms: over an hour for 1 GB; BBR is held by the line.
    expect(before(lossy(), test)).toBeGreaterThan(3_000);
    expect(before(lossy('rate-based'), test)).toBeLessThan(600);
  });

  it('is refused where it is not one the model knows', () => {
    expect(() => ReportSchema.parse({ ...lossy(), pathModel: { ...lossy().pathModel, serverSender: 'cubic' } })).toThrow();
  });
});
