import { describe, expect, it } from 'vitest';
import type { CopyTestResult } from '../contract/copy-test.js';
import { payloadEfficiency } from '../model/link.js';
import { LEAST_PATH_LOSSES, pathLossOfRun, pathOfRun } from './findings.js';

const copy = (workload: string, bytes: number, seconds: number, projected?: CopyTestResult['projected']): CopyTestResult =>
  ({ profile: 'pipefill-max', op: 'read', workload, bytes, seconds, ...(projected ? { projected } : {}) }) as unknown as CopyTestResult;

describe('the path the expectations use', () => {
  const link = { bandwidthBitsPerSecond: 87e6, rttMs: 40 };

  it('keeps the probe where no file copy moved faster', () => {
    expect(pathOfRun(link, [copy('file:8MiB', 8e6, 1)])).toEqual({ bandwidthBitsPerSecond: 87e6, rttMs: 40, bandwidthFrom: 'probe' });
  });

  it('rises to the fastest file copy, over what it really moved, and ignores directory sets and copies that did not run', () => {
    const moved = { stoppedBy: 'settled', measuredBytes: 11.5625e6, measuredSeconds: 1, rateFrom: 'this-copy' } as unknown as CopyTestResult['projected'];
    const notRun = { stoppedBy: 'not-run', measuredBytes: 0, measuredSeconds: 0, rateFrom: 'model-scaled' } as unknown as CopyTestResult['projected'];
    const path = pathOfRun(link, [
      copy('file:8MiB', 8e6, 1),
      copy('file:64MiB', 64e6, 10, moved),
      copy('tr3869-dirset:0.05', 50e6, 1),
      copy('file:1MiB', 1e6, 0.001, notRun),
    ]);
    // The copy moved 92.5 Mb/s of data: the line under it carried its headers too (1448 of each 1514 bytes).
    expect(path).toEqual({ bandwidthBitsPerSecond: 92.5e6 / payloadEfficiency(true), rttMs: 40, bandwidthFrom: 'copy' });
  });

  it("takes the line under a copy's payload in the path's own packets: a tunnel's carry less each", () => {
    const tunnel = { ...link, mtuBytes: 1420 };
    const path = pathOfRun(tunnel, [copy('file:8MiB', 10e6, 1)]);
    expect(path.bandwidthBitsPerSecond).toBeCloseTo((80e6 * 1514) / 1368, 0);
    // 78 Mb/s of data needs 86.3 of line in those packets: under the probe's 87, which stays.
    expect(pathOfRun(tunnel, [copy('file:8MiB', 78e6 / 8, 1)]).bandwidthFrom).toBe('probe');
    expect(pathOfRun(tunnel, [copy('file:8MiB', 79e6 / 8, 1)]).bandwidthFrom).toBe('copy');
  });

  describe("the path's own loss", () => {
    const write = (bytes: number, tcp: Record<string, number>) => ({ ...copy('file:1MiB', bytes, 1), op: 'write', tcp }) as unknown as CopyTestResult;

    it("is what the run's writes lost with no queue behind them over what they wrote, and the path model carries it", () => {
      // 1.1% of one megabyte and 0.7% of another: 0.9% over both, 13 packets.
      const writes = [
        write(1_048_576, { lossOnPathFraction: 0.011, lossAtQueueFraction: 0 }),
        write(1_048_576, { lossOnPathFraction: 0.007, lossAtQueueFraction: 0 }),
      ];
      expect(pathLossOfRun(writes)).toBeCloseTo(0.009, 12);
      expect(pathOfRun(link, writes).lossRate).toBeCloseTo(0.009, 12);
    });

    it("is none below a quarter of a percent, from too few packets, from a copy's own queue, or from reads", () => {
      expect(pathLossOfRun([write(100e6, { lossOnPathFraction: 0.002, lossAtQueueFraction: 0 })])).toBeUndefined();
      // 0.5% of 1 MB is three and a half packets: chance.
      expect(pathLossOfRun([write(1e6, { lossOnPathFraction: 0.005, lossAtQueueFraction: 0 })])).toBeUndefined();
      expect(pathLossOfRun([write(((LEAST_PATH_LOSSES + 1) * 1448) / 0.005, { lossOnPathFraction: 0.005 })])).toBeCloseTo(0.005, 12);
      expect(pathLossOfRun([write(10e6, { lossAtQueueFraction: 0.2, lossOnPathFraction: 0 })])).toBeUndefined();
      expect(pathLossOfRun([{ ...write(10e6, { lossOnPathFraction: 0.02 }), op: 'read' } as CopyTestResult])).toBeUndefined();
      expect(pathOfRun(link, [copy('file:8MiB', 8e6, 1)])).not.toHaveProperty('lossRate');
    });
  });
});
