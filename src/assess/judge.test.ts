// The assessment's judging step on its own: measurements in, findings out,
// no share. The measurements are a lab run's (100 Mb/s, 40 ms, Samba with
// smb2 max credits = 16).

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { CopyTestResult } from '../contract/copy-test.js';
import { ReportSchema } from '../contract/report.js';
import { CLIENT_PROFILES } from '../model/client-profiles.js';
import type { ClientProfileId, Op } from '../model/client-profiles.js';
import { asDrivenByPipefill, DEFAULT_ENGINE_STACK } from '../model/diagnosis.js';
import type { FileCopyAgainstModel } from '../model/scaled-projection.js';
import { SERVER_PROFILES } from '../model/server-profiles.js';
import type { PlannedCopy } from './copy-plan.js';
import type { JudgeInput } from './judge.js';
import { judgeCopies } from './judge.js';
import { observationsOfCopy } from '../contract/copy-test.js';
import { fileSpec } from '../model/assessment.js';
import { predictTransfer } from '../model/predict.js';
import { serverAsSeen } from '../model/server-as-seen.js';
import { parseWorkload } from '../model/workloads.js';
import { sessionOf } from './findings.js';

const report = ReportSchema.parse(JSON.parse(readFileSync(new URL('../report/fixtures/lab-100mbit-40ms-credits16.json', import.meta.url), 'utf8')));
const planned: PlannedCopy[] = report.copyTests.map((test, index) => ({
  index,
  profile: test.profile,
  op: test.op,
  workload: test.workload,
  expectedSeconds: report.diagnosis.findings[index]?.expectedSeconds ?? 0,
  minimumSeconds: 0,
  fromFileCopy: false,
}));
const measured = (): Map<number, CopyTestResult> => new Map(report.copyTests.map((test, index) => [index, test]));

function inputWith(changes: Partial<JudgeInput> = {}): JudgeInput {
  return {
    planned,
    order: planned,
    results: measured(),
    link: { bandwidthBitsPerSecond: report.probes.bandwidth.mbps * 1e6, rttMs: report.probes.rtt.medianMs },
    calibrationSamples: [],
    server: SERVER_PROFILES.samba,
    serverOnLoopback: false,
    stack: DEFAULT_ENGINE_STACK,
    driven: (profile) => asDrivenByPipefill(CLIENT_PROFILES[profile], DEFAULT_ENGINE_STACK),
    lanesOf: () => ({}),
    warmSender: (workload) => workload.startsWith('tr3869-dirset'),
    projectWithoutCopy: () => {
      throw new Error('nothing is projected without a copy here');
    },
    ...changes,
  };
}

const WIN11_FILE_READ = 0;
const WIN11_FILE_WRITE = 1;
const WIN11_FOLDER_READ = 4;

describe('judging a run', () => {
  it('sets every copy against the model for the server as that copy saw it: the 16 credits hold back the Windows 11 file copies', () => {
    const judged = judgeCopies(inputWith());
    // The file copies moved whole and stand as measured; the folders a budget stopped part-way are projected from the
    // model's time for what they moved.
    expect(judged.copyTests.slice(0, 4)).toEqual(report.copyTests.slice(0, 4));
    expect(judged.copyTests[WIN11_FOLDER_READ]?.projected?.rateFrom).toBe('model-scaled');
    expect(judged.findings).toHaveLength(report.copyTests.length);
    expect(judged.findings[WIN11_FILE_READ]?.limitedBy).toBe('credits');
    expect(judged.findings[WIN11_FILE_WRITE]?.limitedBy).toBe('credits');
    // The same measurements, the same judgement.
    expect(judgeCopies(inputWith())).toEqual(judged);
  });

  it('raises the path to what a file copy proved it carries, and the expectations use it', () => {
    const slowProbe = inputWith({ link: { bandwidthBitsPerSecond: 20e6, rttMs: report.probes.rtt.medianMs } });
    const judged = judgeCopies(slowProbe);
    expect(judged.pathModel.bandwidthFrom).toBe('copy');
    expect(judged.modelLink.bandwidthBitsPerSecond).toBeGreaterThan(20e6);
  });

  it("takes the path's own loss, as the run's writes read it, as a layer: the copies it holds are expected at what TCP reaches through it, and it is named", () => {
    // The lab run's Windows 11 file write, as if it had lost 1% of its bytes on the path.
    const results = measured();
    const write = results.get(WIN11_FILE_WRITE) as CopyTestResult;
    results.set(WIN11_FILE_WRITE, { ...write, tcp: { ...write.tcp, lossOnPathFraction: 0.01, lossAtQueueFraction: 0, retransmittedFraction: 0.01 } });
    const link = { bandwidthBitsPerSecond: report.probes.bandwidth.mbps * 1e6, rttMs: report.probes.rtt.medianMs };
    const clean = judgeCopies(inputWith({ link }));
    const lossy = judgeCopies(inputWith({ link, results }));
    expect(lossy.pathModel.lossRate).toBeCloseTo(0.01, 12);
    expect(lossy.modelLink).toMatchObject({ lossRate: lossy.pathModel.lossRate });
    expect(clean.modelLink).not.toHaveProperty('lossRate');
    // Mathis at 1% and 40 ms holds one connection near 3.5 Mb/s: far slower than the 16 credits allow.
    expect(lossy.findings[WIN11_FILE_WRITE]?.limitedBy).toBe('packet-loss');
    expect(lossy.findings[WIN11_FILE_WRITE]?.expectedSeconds).toBeGreaterThan(2 * (clean.findings[WIN11_FILE_WRITE]?.expectedSeconds ?? Infinity));
    // A share on this machine has no path to lose packets on.
    const onThisMachine = judgeCopies(inputWith({ link, results, serverOnLoopback: true }));
    expect(onThisMachine.modelLink).not.toHaveProperty('lossRate');
    expect(onThisMachine.pathModel).not.toHaveProperty('lossRate');
  });

  it('expects the reads as a rate-based sender sends them where a read met the loss and outran every loss-based sender, and says so', () => {
    // The path loses 1% (as the writes read it). The lab run's file reads moved at the credits' pace, past the 3.5 Mb/s
    // Mathis allows CUBIC at 40 ms, with segments out of order (606 and 1093): they met losses and kept their rate.
    const results = measured();
    const write = results.get(WIN11_FILE_WRITE) as CopyTestResult;
    results.set(WIN11_FILE_WRITE, { ...write, tcp: { ...write.tcp, lossOnPathFraction: 0.01, lossAtQueueFraction: 0, retransmittedFraction: 0.01 } });
    const link = { bandwidthBitsPerSecond: report.probes.bandwidth.mbps * 1e6, rttMs: report.probes.rtt.medianMs };
    const judged = judgeCopies(inputWith({ link, results }));
    expect(judged.pathModel.serverSender).toBe('rate-based');
    const read = judged.findings[WIN11_FILE_READ];
    expect(read?.limitedBy).toBe('credits');
    expect(read?.verdict).toBe('as-expected');
    // The writes are the client's own: the loss still holds them.
    expect(judged.findings[WIN11_FILE_WRITE]?.limitedBy).toBe('packet-loss');

    // Reads that met no loss (nothing arrived out of order) show nothing of how their sender answers one.
    for (const index of [WIN11_FILE_READ, 2]) {
      const copy = results.get(index) as CopyTestResult;
      results.set(index, { ...copy, tcp: { ...copy.tcp, outOfOrderPackets: 0 } });
    }
    const unseen = judgeCopies(inputWith({ link, results }));
    expect(unseen.pathModel).not.toHaveProperty('serverSender');
    expect(unseen.findings[WIN11_FILE_READ]?.limitedBy).toBe('packet-loss');
    // Nor does a path that lost nothing.
    expect(judgeCopies(inputWith({ link })).pathModel).not.toHaveProperty('serverSender');
  });

  it('takes the line from iperf3 on several streams only where the path lost packets: one stream was held by the loss', () => {
    const results = measured();
    const write = results.get(WIN11_FILE_WRITE) as CopyTestResult;
    results.set(WIN11_FILE_WRITE, { ...write, tcp: { ...write.tcp, lossOnPathFraction: 0.01, lossAtQueueFraction: 0, retransmittedFraction: 0.01 } });
    const link = { bandwidthBitsPerSecond: 20e6, rttMs: report.probes.rtt.medianMs };
    const lossy = judgeCopies(inputWith({ link, results, parallelLineBitsPerSecond: 100e6 }));
    expect(lossy.pathModel).toMatchObject({ bandwidthBitsPerSecond: 100e6, bandwidthFrom: 'streams' });
    expect(lossy.modelLink.bandwidthBitsPerSecond).toBe(100e6);
    // No loss on the path: several streams filling a queue together say nothing of what one copy gets.
    expect(judgeCopies(inputWith({ link, parallelLineBitsPerSecond: 300e6 })).pathModel.bandwidthFrom).not.toBe('streams');
    // Several streams that moved less than a copy proved leave the copy's line.
    expect(judgeCopies(inputWith({ link, results, parallelLineBitsPerSecond: 21e6 })).pathModel.bandwidthFrom).toBe('copy');
    // One stream the loss did not hold (a BBR server's): sixteen that read a little more leave its line (the lab's
    // 50 Mb/s link read 46-49 Mb/s on one and up to 54.7 on sixteen, more than the line carries); well more, they
    // replace it.
    const unheld = { bandwidthBitsPerSecond: 90e6, rttMs: report.probes.rtt.medianMs };
    expect(judgeCopies(inputWith({ link: unheld, results, parallelLineBitsPerSecond: 100e6 })).pathModel).toMatchObject({
      bandwidthBitsPerSecond: 90e6,
      bandwidthFrom: 'probe',
    });
    expect(judgeCopies(inputWith({ link: unheld, results, parallelLineBitsPerSecond: 120e6 })).pathModel.bandwidthFrom).toBe('streams');
  });

  it("projects a file copy its slot stopped from the model's time for what it moved, not a straight line", () => {
    const results = measured();
    const write = results.get(WIN11_FILE_WRITE);
    if (!write) throw new Error('the fixture has no Windows 11 file write');
    const projected = { stoppedBy: 'time', measuredBytes: 4 * 2 ** 20, measuredSeconds: 1, rateFrom: 'this-copy', lowSeconds: 2, highSeconds: 4 };
    results.set(WIN11_FILE_WRITE, { ...write, projected } as unknown as CopyTestResult);
    const judged = judgeCopies(inputWith({ results }));
    const result = judged.copyTests[WIN11_FILE_WRITE];
    expect(result?.projected?.rateFrom).toBe('model-scaled');
    // Against the model the finding expects it by: the projection and the expectation are one model's.
    expect(result?.projected?.modelSeconds).toBe(judged.findings[WIN11_FILE_WRITE]?.expectedSeconds);
    // A quarter of the file moved in 1 s, its ramp and opening round trips included: the whole takes less than 4 s.
    expect(result?.seconds).toBeGreaterThan(1);
    expect(result?.seconds).toBeLessThan(4);
  });

  it("judges a stopped file write through the path's loss as expected where what it moved ran at the model's pace", () => {
    // The path loses 1% (as the writes read it); the Windows 11 write stopped after 4 MiB, in exactly the model's
    // time for a 4 MiB file on that path. Scaled by the probe's lossless path, the same part read 0.64 of its model.
    const results = measured();
    const write = results.get(WIN11_FILE_WRITE) as CopyTestResult;
    const lossy = { ...write, tcp: { ...write.tcp, lossOnPathFraction: 0.01, lossAtQueueFraction: 0, retransmittedFraction: 0.01 } };
    const link = { bandwidthBitsPerSecond: report.probes.bandwidth.mbps * 1e6, rttMs: report.probes.rtt.medianMs };
    const modelLink = judgeCopies(inputWith({ link, results: new Map([...results, [WIN11_FILE_WRITE, lossy]]) })).modelLink;
    const part = predictTransfer(
      asDrivenByPipefill(CLIENT_PROFILES['win11-24h2'], DEFAULT_ENGINE_STACK),
      serverAsSeen(SERVER_PROFILES.samba, 'write', observationsOfCopy(lossy, false)),
      'write',
      parseWorkload(fileSpec(4 * 2 ** 20)),
      modelLink,
      sessionOf(lossy),
    ).seconds;
    const projected = { stoppedBy: 'time', measuredBytes: 4 * 2 ** 20, measuredSeconds: part, rateFrom: 'this-copy', lowSeconds: part, highSeconds: 8 * part };
    results.set(WIN11_FILE_WRITE, { ...lossy, projected } as unknown as CopyTestResult);
    const judged = judgeCopies(inputWith({ link, results }));
    const finding = judged.findings[WIN11_FILE_WRITE];
    expect(finding?.limitedBy).toBe('packet-loss');
    expect((finding?.measuredSeconds ?? 0) / (finding?.expectedSeconds ?? Infinity)).toBeCloseTo(1, 9);
    expect(finding?.verdict).toBe('as-expected');
  });

  it("projects a quick run's folder from its generation's file copy, as that session would have copied it", () => {
    const quickPlan = planned.map((copy) => (copy.index === WIN11_FOLDER_READ ? { ...copy, fromFileCopy: true } : copy));
    const results = measured();
    results.delete(WIN11_FOLDER_READ);
    const calls: { profile: ClientProfileId; op: Op; spec: string; modelSeconds: number; fileCopy: FileCopyAgainstModel }[] = [];
    const folder = report.copyTests[WIN11_FOLDER_READ] as CopyTestResult;
    const judged = judgeCopies(
      inputWith({
        planned: quickPlan,
        order: quickPlan.filter((copy) => !copy.fromFileCopy),
        results,
        projectWithoutCopy: (profile, op, spec, modelSeconds, fileCopy) => {
          calls.push({ profile, op, spec, modelSeconds, fileCopy });
          return folder;
        },
      }),
    );
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ profile: 'win11-24h2', op: 'read', spec: folder.workload });
    expect(calls[0]?.fileCopy.seconds).toBe(report.copyTests[WIN11_FILE_READ]?.seconds);
    expect(calls[0]?.modelSeconds).toBeGreaterThan(0);
    expect(judged.copyTests[WIN11_FOLDER_READ]).toBe(folder);
    // Without the file copy it is projected from, the run says so rather than guess.
    results.delete(WIN11_FILE_READ);
    expect(() => judgeCopies(inputWith({ planned: quickPlan, results }))).toThrow(/projected from the file copy of the same generation, which did not run/);
  });

  it("scales a folder its slot stopped after one file by its generation's file copy: one small file is too thin to scale by", () => {
    // The lossy lab's default run: Windows 11's folder read stopped after one 50 KB file, 0.68 s where the model gave it
    // 0.42 (one loss on so short an exchange costs a retransmission timeout), and the whole folder was projected 1.62x.
    const results = measured();
    const folder = results.get(WIN11_FOLDER_READ) as CopyTestResult;
    const thin = {
      stoppedBy: 'time',
      measuredBytes: 50_000,
      measuredSeconds: 5,
      filesTouched: 1,
      rateMbps: 0.08,
      rateFrom: 'this-copy',
      rateRelativeHalfWidth: null,
      lowSeconds: 5,
      highSeconds: null,
    };
    results.set(WIN11_FOLDER_READ, { ...folder, projected: thin } as CopyTestResult);
    const judged = judgeCopies(inputWith({ results }));
    const result = judged.copyTests[WIN11_FOLDER_READ];
    const file = judged.copyTests[WIN11_FILE_READ] as CopyTestResult;
    const fileScale = file.seconds / (judged.findings[WIN11_FILE_READ]?.expectedSeconds ?? Infinity);
    expect(result?.projected).toMatchObject({ rateFrom: 'model-scaled', scaledBy: 'file-copy', measuredBytes: 50_000 });
    expect(result?.projected?.modelScale).toBeCloseTo(fileScale, 6);
    expect(result?.seconds).toBeCloseTo((result?.projected?.modelSeconds ?? 0) * fileScale, 6);
    // Two files are the copy's own to scale by, as before.
    results.set(WIN11_FOLDER_READ, { ...folder, projected: { ...thin, filesTouched: 2 } } as CopyTestResult);
    expect(judgeCopies(inputWith({ results })).copyTests[WIN11_FOLDER_READ]?.projected?.scaledBy).toBeUndefined();
  });
});
