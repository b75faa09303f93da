// The assessment against real servers on loopback: smbd and iperf3.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ReportSchema } from '../contract/report.js';
import type { SambaServer } from '../lab/samba.js';
import type { LoopbackServers } from '../lab/loopback-servers.js';
import { startLoopbackServers } from '../lab/loopback-servers.js';
import { SmbError } from '../smb/errors.js';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseSharePath } from '../model/share-path.js';
import { assess } from '../test-support/assess-as-sent.js';
import { AssessmentCopies, readBackKey } from './copy-run.js';
import { formatReport } from '../cli/commands/assess.js';
import { reportHtml } from '../report/html.js';

/** Changes one byte, in place on the server's disk, of the one test file under the share's scratch folder. */
function flipByteOnServer(sharePath: string, offset: number): void {
  const files = readdirSync(sharePath, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile() && entry.name === 'pipefill-test.bin');
  expect(files).toHaveLength(1);
  const path = join(files[0]?.parentPath ?? '', files[0]?.name ?? '');
  const bytes = readFileSync(path);
  bytes[offset] = (bytes[offset] ?? 0) ^ 0xff;
  writeFileSync(path, bytes);
}

describe('assess on loopback', () => {
  let servers: LoopbackServers;
  let server: SambaServer;
  let iperfPort: number;
  beforeAll(async () => {
    servers = await startLoopbackServers();
    ({ samba: server, iperfPort } = servers);
  });
  afterAll(async () => {
    await servers?.stop();
  });

  const input = () => ({
    share: `//127.0.0.1:${server.port}/share`,
    ...server.credentials,
    iperf: `127.0.0.1:${iperfPort}`,
    profiles: ['xp-smb1' as const, 'pipefill-max' as const],
    server: 'samba' as const,
    quick: true,
  });

  it('produces one report: probes, every copy test, a finding for each, and no password', async () => {
    const steps = new Set<string>();
    const report = await assess(input(), { onProgress: (event) => steps.add(event.step.split(' ')[0] ?? '') });
    expect(ReportSchema.parse(report)).toEqual(report);
    expect(report.probes.rtt.medianMs).toBeGreaterThan(0);
    expect(report.probes.bandwidth.method).toBe('iperf3');
    expect(report.copyTests).toHaveLength(8);
    // Quick: each generation's file is copied; its directory set is projected from that copy, not run (and says so).
    for (const copy of report.copyTests) {
      // Every copy that ran is verified, the file writes by the read-back they share after the copies.
      if (copy.workload.startsWith('file:')) expect(`${copy.projected?.stoppedBy ?? 'whole'} ${String(copy.verified)}`).toMatch(/^(?!not-run )\S+ true$/);
      else expect(copy.projected).toMatchObject({ stoppedBy: 'not-run', rateFrom: 'model-scaled', measuredBytes: 0, modelScale: expect.any(Number) });
    }
    expect(report.diagnosis.findings.map((f) => `${f.profile} ${f.op}`)).toContain('xp-smb1 read');
    expect(report.diagnosis.headline.length).toBeGreaterThan(20);
    expect(JSON.stringify(report)).not.toContain(server.credentials.password);
    expect([...steps]).toEqual(expect.arrayContaining(['probe', 'xp-smb1', 'pipefill-max']));
    expect(server.shareContents()).toEqual([]);
  }, 120_000);

  it('by default: the verdict for Windows 11 24H2 beside the best pipeline, the server recognised, the hosts measured, the answer first', async () => {
    const report = await assess({ share: input().share, ...server.credentials, quick: true });
    expect(report.options.profiles).toEqual(['win11-24h2', 'pipefill-max']);
    expect(report.options).toMatchObject({ client: 'win11-24h2', server: 'samba', serverSource: { kind: 'recognised' } });
    expect(report.verdict?.client).toBe('win11-24h2');
    expect(report.verdict?.lines[0]).toMatch(/^Your copies with Windows 11 24H2/);
    expect(report.verdict?.lines[1]).toMatch(/the share is on this machine.*the server is Samba \(recognised from its NTLM challenge/);
    // A loopback path is a fast one: the hosts were measured, and no copy is said to have lost packets.
    // The hosts measured on their own: a cost per byte each way, and the generation's signing measured with it.
    expect(report.pathModel?.hostCosts?.write.secondsPerByte).toBeGreaterThan(0);
    expect(report.pathModel?.hostCosts?.read.secondsPerByte).toBeGreaterThan(0);
    expect(report.pathModel?.hostCosts?.protected?.protection).toEqual({ kind: 'signing', algorithm: 'AES-128-GMAC' });
    expect(report.pathModel?.hostCosts?.turnaroundSeconds).toEqual({ read: expect.any(Number), write: expect.any(Number) });
    // A fast path: ECHOs back to back as well, and the round trip no more than theirs.
    expect(report.probes.rtt.smbEchoBackToBack?.samples).toBe(16);
    expect(report.probes.rtt.medianMs).toBeLessThanOrEqual(report.probes.rtt.smbEchoBackToBack?.medianMs ?? 0);
    expect(report.diagnosis.findings.filter((finding) => finding.limitedBy === 'packet-loss')).toEqual([]);
    // The CLI prints the answer first: at most five lines and a blank one before the table.
    const printed = formatReport(report).split('\n');
    const header = printed.findIndex((line) => /^copy +measured +expected +rate +verdict +limited by$/.test(line.trimEnd()));
    expect(header).toBeGreaterThan(0);
    expect(header).toBeLessThanOrEqual(6);
    // The app's words: plain copy names, MB/s beside Mb/s, the layer's label.
    expect(printed[header + 1]).toMatch(
      /^(Windows 11 24H2|Best pipeline), (large file|small files) (read|write) .* [\d.]+ [kMG]?B\/s \([\d.]+ [kMG]b\/s\) +(as expected|slower than expected|faster than expected|held back: .+?) +[A-Z]/,
    );
    expect(reportHtml(report)).toContain('<h2>What to change</h2>');
    expect(server.shareContents()).toEqual([]);
  }, 120_000);

  it("copies the person's folders of small files as robocopy /MT:4 when asked: whole, in lanes, on a whole source, and says so", async () => {
    // A budget short enough that Pipefill's own write of the folder, the lanes' read source, would be stopped were it budgeted.
    const report = await assess({ share: input().share, ...server.credentials, threads: 4, budgetSeconds: 8, fileBytes: 1 << 20, dirsetScale: 0.1 });
    expect(report.options.threads).toBe(4);
    const lanes = report.copyTests.filter((copy) => copy.profile === 'win11-24h2' && copy.workload.startsWith('tr3869-dirset'));
    expect(lanes.map((copy) => `${copy.op} ${String(copy.lanes)} ${copy.projected?.stoppedBy ?? 'whole'} ${String(copy.verified)}`).sort()).toEqual([
      'read 4 whole true',
      'write 4 whole true',
    ]);
    // The source the lanes read was written whole.
    const source = report.copyTests.find((copy) => copy.profile === 'pipefill-max' && copy.op === 'write' && copy.workload.startsWith('tr3869-dirset'));
    expect(source?.projected).toBeUndefined();
    // Pipefill's own read of the folder (budgeted, no lanes) goes no further than its source, here the whole folder,
    // and stops once its rate has settled (200 ms at least) or its slot is spent: on loopback that may be never.
    // Where it stopped, its time is the model's for the whole folder, scaled by what it took against the model's.
    const ownRead = report.copyTests.find((copy) => copy.profile === 'pipefill-max' && copy.op === 'read' && copy.workload.startsWith('tr3869-dirset'));
    if (ownRead?.projected) {
      expect(ownRead.projected).toMatchObject({ rateFrom: 'model-scaled', modelSeconds: expect.any(Number), modelScale: expect.any(Number) });
    } else {
      expect(ownRead?.verified).toBe(true);
      expect(ownRead?.bytes).toBe(source?.bytes);
    }
    expect(report.verdict?.lines[0]).toMatch(/^Your copies with Windows 11 24H2.*, small files by robocopy \/MT:4:/);
    // The copy tool is set as recommended or further: robocopy is not proposed again at 4 or fewer threads.
    const robocopy = report.advice?.recommendations.find((recommendation) => recommendation.id === 'copy-tool.robocopy-mt');
    if (robocopy) expect(Number(robocopy.value)).toBeGreaterThan(4);
    expect(server.shareContents()).toEqual([]);
  }, 180_000);

  /** Pipefill's own write of a 1 MiB file with its read-back deferred, then `body`; the share empty after. */
  async function afterDeferredWrite(body: (copies: AssessmentCopies) => Promise<void>): Promise<void> {
    const copies = await AssessmentCopies.open(parseSharePath(input().share), server.credentials, ['pipefill-max']);
    try {
      const written = await copies.copy('pipefill-max', 'write', 'file:1MiB', { readBackLater: true });
      expect(written.verified).toBe(false);
      await body(copies);
    } finally {
      await copies.close();
    }
    expect(server.shareContents()).toEqual([]);
  }

  it("a file write's read-back, run after the copies, finds a byte changed on the server since", async () => {
    await afterDeferredWrite(async (copies) => {
      flipByteOnServer(server.sharePath, 700_000);
      await expect(copies.readBackWrites()).rejects.toThrow();
      // Nothing is left to read back once it has run.
      await expect(copies.readBackWrites()).resolves.toEqual(new Set());
    });
  }, 60_000);

  it('a source write read whole by a read copy is verified by that read: its own read-back is not run', async () => {
    await afterDeferredWrite(async (copies) => {
      const read = await copies.copy('pipefill-max', 'read', 'file:1MiB', {});
      expect(read).toMatchObject({ verified: true, bytes: 1024 * 1024 });
      // A byte changed after that read goes unseen: no second read of the file runs (the read-back was dropped).
      flipByteOnServer(server.sharePath, 5);
      await expect(copies.readBackWrites()).resolves.toEqual(new Set([readBackKey('pipefill-max', 'write', 'file:1MiB')]));
    });
  }, 60_000);

  it('stops within 2 s of a cancel and leaves no scratch files', async () => {
    const controller = new AbortController();
    // Cancelled in the middle of a copy (the scratch folder then holds files), whenever the copies begin on this machine.
    let cancelledAt = 0;
    const onProgress = (event: { step: string; live?: unknown }) => {
      if (cancelledAt === 0 && event.live && event.step.startsWith('xp-smb1')) {
        cancelledAt = Date.now();
        controller.abort();
      }
    };
    const run = assess({ ...input(), quick: false }, { signal: controller.signal, onProgress });
    const error = await run.then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(cancelledAt).toBeGreaterThan(0);
    expect(Date.now() - cancelledAt).toBeLessThan(2_000);
    expect(error, String(error)).toBeInstanceOf(SmbError);
    expect((error as SmbError).kind).toBe('cancelled');
    expect(server.shareContents()).toEqual([]);
  }, 120_000);
});
