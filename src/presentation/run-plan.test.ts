import { describe, expect, it } from 'vitest';
import { MAX_FILE_BYTES, START_DIRSET_SCALE } from '../model/assessment.js';
import { fastPathExtraBytes } from '../model/calibration-bytes.js';
import { tr3869DirectorySet } from '../model/workloads.js';
import { assessmentPlan, assessmentPlanText, capacityPlanText, copyTestPlanText } from './run-plan.js';

describe("an assessment's plan", () => {
  it('bounds what the default run writes and reads, where, and for how long', () => {
    const plan = assessmentPlan({ share: '//files.example.com/team/scratch' });
    const each = MAX_FILE_BYTES + tr3869DirectorySet(START_DIRSET_SCALE).totalBytes;
    // Two generations (the person's client and Pipefill's), each writing and reading a file and a directory set; file writes read back.
    expect(plan).toEqual({
      where: '\\\\files.example.com\\team\\scratch',
      clients: "your Windows 11 24H2 and Pipefill's best pipeline",
      maxWriteBytes: 2 * each,
      maxReadBytes: 2 * each + 2 * MAX_FILE_BYTES,
      // On a fast path: the calibration's two sessions, up to seven runs of 32 and 64 MiB each way, the turnaround's
      // 3 MiB, and an 8 MiB warm-up on those two and the three copy sessions (the generations' and the signing check's).
      fastPathExtraBytes: 2 * 7 * 96 * 2 ** 20 + 3 * 2 ** 20 + 5 * 8 * 2 ** 20,
      budgetSeconds: 60,
    });
    expect(plan.fastPathExtraBytes).toBe(fastPathExtraBytes(3));
    expect(assessmentPlanText(plan)).toBe(
      "Copies test files as your Windows 11 24H2 and Pipefill's best pipeline do: writes at most 644 MB and reads at most 1.18 GB in a scratch folder it makes in \\\\files.example.com\\team\\scratch and removes (you need write access there), loading the link for up to 60 s. Where the share answers within 2 ms (a LAN, or this machine), up to 1.45 GB more each way, to time the two machines first.",
    );
  });

  it('follows the sizes, generations and budget asked for', () => {
    const quick = assessmentPlan({ share: '\\\\nas\\share', quick: true, fileBytes: 8 * 2 ** 20, dirsetScale: 0.01, compare: ['xp-smb1'] });
    expect(quick.clients).toBe("Windows XP, your Windows 11 24H2 and Pipefill's best pipeline");
    expect(quick.budgetSeconds).toBe(20);
    // Without Pipefill's own generation its writes still lay down the reads' sources.
    const without = assessmentPlan({ share: '\\\\nas\\share', profiles: ['win7-smb2'], fileBytes: 2 ** 20, dirsetScale: 0.01 });
    expect(without.maxWriteBytes).toBe(2 * (2 ** 20 + tr3869DirectorySet(0.01).totalBytes));
    expect(assessmentPlanText(assessmentPlan({ share: '\\\\nas\\share', full: true }))).toMatch(
      /loading the link until every byte is moved \(no time limit\)\. Where/,
    );
    expect(() => assessmentPlan({ share: 'nas' })).toThrow(/not a share path/);
  });
});

describe("a capacity run's plan", () => {
  it('says how many people, for how long, and what lands on the share', () => {
    expect(capacityPlanText({ share: '//nas/share' })).toBe(
      'Loads the link with up to 32 people copying at once, each reading a 64 MiB file over and over, in 6 steps of 13 s (about 78 s); their files, at most 2.15 GB, go in a scratch folder it makes in \\\\nas\\share and removes (you need write access there).',
    );
    expect(capacityPlanText({ share: '//nas/share/team', clients: [1], op: 'write', seconds: 5, warmupSeconds: 0, fileBytes: 2 ** 20 })).toMatch(
      /^Loads the link with up to 1 person copying at once, each writing a 1 MiB file over and over, in 1 step of 5 s \(about 5 s\); their files, at most 1.05 MB, go in a scratch folder it makes in \\\\nas\\share\\team/,
    );
  });
});

describe("a single test copy's plan", () => {
  it('counts the source a read writes first and the check a write reads back', () => {
    expect(copyTestPlanText({ share: '//nas/share', profile: 'win7-smb2', op: 'write', workload: 'file:32MiB' })).toBe(
      "Copies a large file (32 MiB) as Windows 7 writes it: writes at most 33.6 MB and reads at most 33.6 MB (the check of what arrived) in a scratch folder it makes in \\\\nas\\share and removes (you need write access there). Where the share answers within 2 ms (a LAN, or this machine), up to 8.39 MB more each way, to bring the server's process to its usual state first.",
    );
    expect(copyTestPlanText({ share: '//nas/share', profile: 'xp-smb1', op: 'write', workload: 'file:32MiB', verify: false })).toMatch(/reads at most 0 B in/);
    expect(copyTestPlanText({ share: '//nas/share', profile: 'pipefill-max', op: 'read', workload: 'tr3869-dirset:0.05', budgetSeconds: 5 })).toMatch(
      /^Copies small files \(15 files in 1 folder, 53.7 MB\) as Best pipeline reads it: writes at most 53.7 MB \(its source, written first\) and reads at most 53.7 MB in .*; it stops once the rate has settled, or after 5 s\. Where/,
    );
  });
});
