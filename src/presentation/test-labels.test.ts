import { describe, expect, it } from 'vitest';
import { adviceTestText, clientShortLabel, copyRateText, testLongLabel, testShortLabel, workloadText } from './test-labels.js';

describe('what a test copy is called', () => {
  it('names workloads by what they are, not their spec', () => {
    expect(workloadText('file:15MiB')).toBe('large file (15 MiB)');
    expect(workloadText('tr3869-dirset:0.033')).toBe('small files (10 files in 1 folder, 35.8 MB)');
    expect(workloadText('tr3869-dirset')).toBe('small files (300 files in 14 folders, 1.07 GB)');
    // A newer Pipefill's workload, or an edited file's: as it is, never an exception.
    expect(workloadText('tr9999-future-set')).toBe('tr9999-future-set');
  });

  it('gives short names for axes and long ones for headings', () => {
    const test = { profile: 'win11-24h2', op: 'write', workload: 'tr3869-dirset:0.033' };
    expect(testShortLabel(test)).toBe('Windows 11 24H2, small files write');
    expect(testLongLabel(test)).toBe('Windows 11 24H2, SMB 3.1.1 (signing required): write, small files (10 files in 1 folder, 35.8 MB)');
    expect(clientShortLabel('pipefill-max')).toBe('Best pipeline');
    expect(clientShortLabel('toString')).toBe('toString');
  });

  it("shows a copy's rate in MB/s, as Explorer and robocopy do, with Mb/s beside it", () => {
    expect(copyRateText(42.4e6)).toBe('5.3 MB/s (42.4 Mb/s)');
    expect(copyRateText(18396.4717e6)).toBe('2.3 GB/s (18.4 Gb/s)');
    expect(copyRateText(Number.NaN)).toBe('unknown');
  });
});

describe("a recommendation's test in words", () => {
  it('says what is copied, not the spec', () => {
    expect(adviceTestText('read file:100MB')).toBe('reading a large file (100 MB)');
    expect(adviceTestText('write tr3869-dirset')).toBe('writing the 1 GB folder of 300 small files');
    expect(adviceTestText('read file:1GB')).toBe('reading a 1 GB file');
    expect(adviceTestText('copy something')).toBe('copy something');
  });
});
