import { describe, expect, it } from 'vitest';
import type { Link } from './link.js';
import { compareWithModel, fileSpec, sizeAssessment } from './assessment.js';
import { STEADY_SPAN_MS } from './steady-rate.js';
import { CLIENT_PROFILES } from './client-profiles.js';
import { parseWorkload } from './workloads.js';
import { asDrivenByPipefill, DEFAULT_ENGINE_STACK } from './diagnosis.js';
import { predict, predictTransfer } from './predict.js';
import { SERVER_PROFILES } from './server-profiles.js';

const PROFILES = (['xp-smb1', 'win7-smb1', 'win7-smb2', 'win10-smb3', 'pipefill-max'] as const).map((id) =>
  asDrivenByPipefill(CLIENT_PROFILES[id], DEFAULT_ENGINE_STACK),
);
const sized = (link: Link, target: number) =>
  sizeAssessment(link, SERVER_PROFILES.samba, PROFILES, asDrivenByPipefill(CLIENT_PROFILES['pipefill-max'], DEFAULT_ENGINE_STACK), target);

describe('sizeAssessment', () => {
  it('sizes the default run to about a minute', () => {
    // The default run: the person's client and Pipefill's own.
    const pipefill = asDrivenByPipefill(CLIENT_PROFILES['pipefill-max'], DEFAULT_ENGINE_STACK);
    const person = [asDrivenByPipefill(CLIENT_PROFILES['win11-24h2'], DEFAULT_ENGINE_STACK), pipefill];
    const oc3 = sizeAssessment({ bandwidthBitsPerSecond: 155e6, rttMs: 32 }, SERVER_PROFILES.samba, person, pipefill, 60);
    expect(oc3.predictedSeconds).toBeGreaterThan(50);
    expect(oc3.predictedSeconds).toBeLessThanOrEqual(60);
    // At 100 Mb/s and 50 ms five generations cost more than a minute even at the floors (XP reads one 60 KiB request per
    // round trip): a file long enough for a steady rate would overrun the budget, so the run keeps the 1 MiB floor and
    // the verdict says its file was too short to show one.
    const branch = sized({ bandwidthBitsPerSecond: 100e6, rttMs: 50 }, 60);
    expect(branch.predictedSeconds).toBeGreaterThan(60);
    expect(branch.dirsetScale).toBe(0.01);
    expect(branch.fileBytes).toBe(1024 * 1024);
  });

  it("keeps a file long enough for a steady rate, in a quick run too (the demo link's 1 MiB quick sample read TCP's ramp)", () => {
    const demo = { bandwidthBitsPerSecond: 100e6, rttMs: 40 };
    const pipefill = asDrivenByPipefill(CLIENT_PROFILES['pipefill-max'], DEFAULT_ENGINE_STACK);
    const person = [asDrivenByPipefill(CLIENT_PROFILES['win11-24h2'], DEFAULT_ENGINE_STACK), pipefill];
    const quick = sizeAssessment(demo, SERVER_PROFILES.samba, person, pipefill, 15, { dirsetsCopied: false });
    const full = sizeAssessment(demo, SERVER_PROFILES.samba, person, pipefill, 60);
    // Pipefill's own copy of it moves data for at least the span a steady rate is read over, after its opening.
    const moving = (bytes: number) =>
      predictTransfer(pipefill, SERVER_PROFILES.samba, 'write', parseWorkload(fileSpec(bytes)), demo).seconds - (4 * demo.rttMs) / 1000;
    expect(moving(quick.fileBytes)).toBeGreaterThanOrEqual(STEADY_SPAN_MS / 1000);
    expect(moving(full.fileBytes)).toBeGreaterThanOrEqual(STEADY_SPAN_MS / 1000);
    // The two runs copy files of about the same size: a quick run's target counts its file copies only.
    expect(quick.fileBytes / full.fileBytes).toBeGreaterThan(0.8);
    expect(quick.fileBytes / full.fileBytes).toBeLessThan(1.25);
  });

  it('keeps the file at two seconds of line rate when the path is fast and short', () => {
    const size = sized({ bandwidthBitsPerSecond: 1e9, rttMs: 0.2 }, 60);
    expect(size.fileBytes).toBe(238 * 1024 * 1024);
    expect(size.predictedSeconds).toBeLessThanOrEqual(60);
    expect(size.dirsetScale).toBe(0.05);
  });

  it('never goes below 1 MiB and 1% of the directory set', () => {
    const size = sized({ bandwidthBitsPerSecond: 2e6, rttMs: 600 }, 60);
    expect(size.fileBytes).toBe(1024 * 1024);
    expect(size.dirsetScale).toBe(0.01);
  });
});

describe('compareWithModel', () => {
  const expected = predict({
    client: 'win10-smb3',
    server: 'win2012plus',
    op: 'write',
    workload: 'file:100MB',
    link: { bandwidthBitsPerSecond: 100e6, rttMs: 50 },
  });

  it('calls a copy within 15% of the expectation as expected, and no further', () => {
    expect(compareWithModel(expected.seconds * 1.14, expected).verdict).toBe('as-expected');
    expect(compareWithModel(expected.seconds * 0.86, expected).verdict).toBe('as-expected');
    // The Windows 11 write of the issue: 3.12 s against 2.31 s expected was green in the old 0.7..1.4 band.
    expect(compareWithModel(expected.seconds * 1.35, expected).verdict).toBe('slower-than-expected');
    expect(compareWithModel(expected.seconds * 0.8, expected).verdict).toBe('faster-than-expected');
  });

  it('flags a copy far slower than expected', () => {
    const comparison = compareWithModel(expected.seconds * 3, expected);
    expect(comparison.verdict).toBe('slower-than-expected');
    expect(comparison.efficiency).toBeCloseTo(1 / 3, 6);
  });

  it('flags a copy faster than the model allows', () => {
    expect(compareWithModel(expected.seconds / 2, expected).verdict).toBe('faster-than-expected');
  });

  it("holds a copy to 15% of the model, and on a fast path to that and the hosts' calibration's own scatter together", () => {
    // 1.25x the model's time: slower than expected on a WAN path; within a calibration whose runs scattered by a fifth.
    expect(compareWithModel(1.25, { seconds: 1 }).verdict).toBe('slower-than-expected');
    expect(compareWithModel(1.25, { seconds: 1 }, 0.2).verdict).toBe('as-expected');
    expect(compareWithModel(1.14, { seconds: 1 }).verdict).toBe('as-expected');
    expect(compareWithModel(0.8, { seconds: 1 }).verdict).toBe('faster-than-expected');
    expect(compareWithModel(0.8, { seconds: 1 }, 0.2).verdict).toBe('as-expected');
  });
});

describe('fileSpec', () => {
  it('names whole MiB in MiB and anything else to the byte, never rounding a small file to nothing', () => {
    expect(fileSpec(4 * 2 ** 20)).toBe('file:4MiB');
    expect(fileSpec(100_000)).toBe('file:100000B');
    expect(fileSpec(1.5 * 2 ** 20)).toBe('file:1572864B');
    expect(parseWorkload(fileSpec(100_000)).totalBytes).toBe(100_000);
  });
});
