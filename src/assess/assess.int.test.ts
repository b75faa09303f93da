// The assessment against real servers on loopback: smbd and iperf3.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ReportSchema } from '../contract/report.js';
import type { SambaServer } from '../lab/samba.js';
import type { LoopbackServers } from '../lab/loopback-servers.js';
import { startLoopbackServers } from '../lab/loopback-servers.js';
import { SmbError } from '../smb/errors.js';
import { assess } from './assess.js';

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
      if (copy.workload.startsWith('file:')) expect(copy.projected?.stoppedBy).not.toBe('not-run');
      else expect(copy.projected).toMatchObject({ stoppedBy: 'not-run', rateFrom: 'file-copy', measuredBytes: 0 });
    }
    expect(report.diagnosis.findings.map((f) => `${f.profile} ${f.op}`)).toContain('xp-smb1 read');
    expect(report.diagnosis.headline.length).toBeGreaterThan(20);
    expect(JSON.stringify(report)).not.toContain(server.credentials.password);
    expect([...steps]).toEqual(expect.arrayContaining(['probe', 'xp-smb1', 'pipefill-max']));
    expect(server.shareContents()).toEqual([]);
  }, 120_000);

  it('stops within 2 s of a cancel and leaves no scratch files', async () => {
    const controller = new AbortController();
    const run = assess({ ...input(), quick: false }, { signal: controller.signal });
    await new Promise((resolve) => setTimeout(resolve, 6_000));
    const cancelledAt = Date.now();
    controller.abort();
    const error = await run.then(() => undefined, (reason: unknown) => reason);
    expect(Date.now() - cancelledAt).toBeLessThan(2_000);
    expect(error).toBeInstanceOf(SmbError);
    expect((error as SmbError).kind).toBe('cancelled');
    expect(server.shareContents()).toEqual([]);
  }, 120_000);
});
