import { describe, expect, it } from 'vitest';
import type { CopyTestResult } from '../contract/copy-test.js';
import { pathOfRun } from './findings.js';

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
    expect(path).toEqual({ bandwidthBitsPerSecond: 92.5e6, rttMs: 40, bandwidthFrom: 'copy' });
  });
});
