import { describe, expect, it } from 'vitest';
import type { Link } from './link.js';
import { compareWithModel, fileSpec, sizeAssessment } from './assessment.js';
import { CLIENT_PROFILES } from './client-profiles.js';
import { parseWorkload } from './workloads.js';
import { asDrivenByPipefill, DEFAULT_ENGINE_STACK } from './diagnosis.js';
import { predict } from './predict.js';
import { SERVER_PROFILES } from './server-profiles.js';

const PROFILES = (['xp-smb1', 'win7-smb1', 'win7-smb2', 'win10-smb3', 'pipefill-max'] as const).map((id) =>
  asDrivenByPipefill(CLIENT_PROFILES[id], DEFAULT_ENGINE_STACK),
);
const sized = (link: Link, target: number) =>
  sizeAssessment(link, SERVER_PROFILES.samba, PROFILES, asDrivenByPipefill(CLIENT_PROFILES['pipefill-max'], DEFAULT_ENGINE_STACK), target);

describe('sizeAssessment', () => {
  it('sizes the default run to about a minute', () => {
    const oc3 = sized({ bandwidthBitsPerSecond: 155e6, rttMs: 32 }, 60);
    expect(oc3.predictedSeconds).toBeGreaterThan(50);
    expect(oc3.predictedSeconds).toBeLessThanOrEqual(60);
    // At 100 Mb/s and 50 ms the floors (1 MiB, three files) already cost 81 s:
    // XP reads one 60 KiB request per round trip.
    const branch = sized({ bandwidthBitsPerSecond: 100e6, rttMs: 50 }, 60);
    expect(branch.predictedSeconds).toBeLessThanOrEqual(90);
    expect(branch.fileBytes).toBe(1024 * 1024);
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
});

describe('fileSpec', () => {
  it('names whole MiB in MiB and anything else to the byte, never rounding a small file to nothing', () => {
    expect(fileSpec(4 * 2 ** 20)).toBe('file:4MiB');
    expect(fileSpec(100_000)).toBe('file:100000B');
    expect(fileSpec(1.5 * 2 ** 20)).toBe('file:1572864B');
    expect(parseWorkload(fileSpec(100_000)).totalBytes).toBe(100_000);
  });
});
