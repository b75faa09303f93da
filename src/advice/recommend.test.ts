import { describe, expect, it } from 'vitest';
import { CLIENT_PROFILE_IDS, CLIENT_PROFILES } from '../model/client-profiles.js';
import { predictTransfer } from '../model/predict.js';
import type { Observations } from '../model/server-as-seen.js';
import { serverAsSeen } from '../model/server-as-seen.js';
import { SERVER_PROFILE_IDS, SERVER_PROFILES } from '../model/server-profiles.js';
import { parseWorkload } from '../model/workloads.js';
import { KNOBS } from './knobs.js';
import { recommend } from './recommend.js';

const link = (mbps: number, rttMs: number) => ({ bandwidthBitsPerSecond: mbps * 1e6, rttMs });

describe('recommend', () => {
  it("never proposes a value outside a knob's range, nor one that does not help", () => {
    for (const client of CLIENT_PROFILE_IDS) {
      for (const server of SERVER_PROFILE_IDS) {
        for (const path of [link(1000, 0.5), link(155, 32), link(155, 75), link(622, 75), link(14, 311), link(1000, 250)]) {
          const result = recommend({ link: path, client, server });
          // Signing and encryption are never weakened, in either list: only their strongest value is ever put forward.
          for (const r of [...result.recommendations, ...result.protections]) {
            const protection = KNOBS.find((k) => k.id === r.id)?.protection;
            if (protection) expect(r.value, r.id).toEqual(protection.strongest);
          }
          for (const r of result.protections) expect(KNOBS.find((k) => k.id === r.id)?.protection, r.id).toBeDefined();
          for (const r of result.recommendations) {
            const knob = KNOBS.find((k) => k.id === r.id);
            expect(knob, r.id).toBeDefined();
            if (knob?.range && typeof r.value === 'number') {
              expect(r.value).toBeGreaterThanOrEqual(knob.range[0]);
              expect(r.value).toBeLessThanOrEqual(knob.range[1]);
            }
            if (knob?.values) expect(knob.values).toContain(r.value);
            expect(r.expectedSeconds.after).toBeLessThan(r.expectedSeconds.before * 0.95);
            expect(r.value).not.toEqual(r.current);
          }
        }
      }
    }
    // Every pair of profiles on six paths: a sweep, not a timing; a busy machine may take several times as long.
  }, 60_000);

  it('opens the filer window that TR-3869 found hiding every difference', () => {
    const result = recommend({ link: link(155, 75), client: 'xp-smb1', server: 'netapp-7mode-default' });
    const window = result.recommendations.find((r) => r.id === 'ontap.cifs-tcp-window-size');
    expect(window?.value).toBe(2_096_560);
    expect(window?.command).toBe('options cifs.tcp_window_size 2096560');
    expect(window?.caution).toMatch(/CIFS restart/);
  });

  it("undoes a Samba server's fixed socket buffer and small credit limit, read from its smb.conf", () => {
    const result = recommend({
      link: link(155, 75),
      client: 'win10-smb3',
      server: 'samba',
      current: { 'samba.smb2-max-credits': 16, 'samba.socket-options': 'TCP_NODELAY SO_RCVBUF=65536' },
    });
    const ids = result.recommendations.map((r) => r.id);
    expect(ids).toEqual(expect.arrayContaining(['samba.socket-options', 'samba.smb2-max-credits']));
    const socket = result.recommendations.find((r) => r.id === 'samba.socket-options');
    expect(socket?.value).toBe('TCP_NODELAY');
    expect(socket?.expectedSeconds.after).toBeLessThan((socket?.expectedSeconds.before ?? 0) / 2);
    const credits = result.recommendations.find((r) => r.id === 'samba.smb2-max-credits');
    expect(Number(credits?.value)).toBeGreaterThanOrEqual(Math.ceil((2 * (155e6 / 8) * 0.075) / 65536));
  });

  it('lifts Vista-era credit throttling where it holds a long fat pipe', () => {
    const result = recommend({ link: link(1000, 100), client: 'vista-smb2', server: 'win2008-rtm' });
    expect(result.recommendations.find((r) => r.id === 'windows-client.bandwidth-throttling')?.value).toBe(1);
  });

  it('recommends nothing for a LAN copy that already fills the link', () => {
    const result = recommend({ link: link(100, 0.3), client: 'win10-smb3', server: 'win2012plus' });
    expect(result.recommendations.filter((r) => r.test.includes('file'))).toEqual([]);
  });

  it('says how all of it together changes each test', () => {
    const result = recommend({ link: link(155, 75), client: 'win10-smb3', server: 'samba' });
    expect(result.combined.map((c) => c.test)).toEqual(['read file:1GB', 'write file:1GB', 'read tr3869-dirset', 'write tr3869-dirset']);
    for (const c of result.combined) expect(c.after).toBeLessThanOrEqual(c.before);
  });

  it("weighs an assessment's own copies too, in every change's tests and all of them together, never as its headline", () => {
    const result = recommend({ link: link(155, 75), client: 'win10-smb3', server: 'samba', workloads: ['file:15MiB', 'file:1GB', 'nonsense:3'] });
    expect(result.combined.map((c) => c.test)).toEqual([
      'read file:1GB',
      'write file:1GB',
      'read tr3869-dirset',
      'write tr3869-dirset',
      'read file:15MiB',
      'write file:15MiB',
    ]);
    for (const r of result.recommendations) {
      expect(r.tests.map((t) => t.test)).toContain('write file:15MiB');
      expect(r.test).not.toMatch(/15MiB/);
    }
  });

  it("proposes taking a fixed receive buffer out of Samba's socket options where the copies' writes waited on the server's window", () => {
    // The demo's link with SO_RCVBUF=65536 (lab, 2026-11-27): writes held to 79.5 KiB in flight 90% of the time. Before,
    // socket options were assumed at their default (TCP_NODELAY, the proposal) and never named, and robocopy /MT:8 was
    // promised the folder in 99 s through a window that allows 1 GB no faster than 500 s.
    const result = recommend({
      link: { bandwidthBitsPerSecond: 96.5e6, rttMs: 40.1, lossRate: 0 },
      client: 'win11-24h2',
      server: 'samba',
      observations: { peerWindowBytes: 81_408, peerWindowLimitedFraction: 0.9 },
    });
    const window = result.recommendations.find((recommendation) => recommendation.id === 'samba.socket-options');
    expect(window?.value).toBe('TCP_NODELAY');
    expect(window?.current).toBe('SO_RCVBUF=81408');
    expect(window?.currentFrom).toBe('observed');
    expect(window?.why).toMatch(/socket options \(SO_RCVBUF=81408, as the copies saw it\) -> TCP_NODELAY/);
    const robocopy = result.recommendations.find((recommendation) => recommendation.id === 'copy-tool.robocopy-mt');
    const windowSeconds = 1e9 / (81_408 / 0.0401);
    if (robocopy) expect(robocopy.expectedSeconds.after).toBeGreaterThan(0.9 * windowSeconds);
    // Without the observation nothing says the buffer was changed, and nothing is proposed.
    const unseen = recommend({ link: { bandwidthBitsPerSecond: 96.5e6, rttMs: 40.1, lossRate: 0 }, client: 'win11-24h2', server: 'samba' });
    expect(unseen.recommendations.some((recommendation) => recommendation.id === 'samba.socket-options')).toBe(false);
  });

  it('proposes AES-128-GMAC first where a 3.1.1 copy listed it first and the server chose AES-128-CMAC', () => {
    // A loopback Samba with server smb3 signing algorithms = AES-128-CMAC: Windows 11 24H2 signs every message with it.
    // Before, the server was assumed to offer GMAC (Samba's default), the change equal to it, and never named.
    const link = { bandwidthBitsPerSecond: 13.7e9, rttMs: 0.18, lossRate: 0 };
    const seen = { signingRequired: true, signingChoice: { chosen: 'AES-128-CMAC' as const, passedOver: ['AES-128-GMAC' as const] } };
    const result = recommend({ link, client: 'win11-24h2', server: 'samba', observations: seen });
    const algorithms = result.recommendations.find((recommendation) => recommendation.id === 'samba.signing-algorithms');
    expect(algorithms?.current).toBe('AES-128-CMAC');
    expect(algorithms?.currentFrom).toBe('observed');
    expect(String(algorithms?.value)).toMatch(/^AES-128-GMAC/);
    expect(algorithms?.why).toMatch(/server smb3 signing algorithms \(AES-128-CMAC, as the copies saw it\) -> AES-128-GMAC/);
    expect(algorithms?.expectedSeconds.after).toBeLessThan(algorithms?.expectedSeconds.before ?? 0);
    const unseen = recommend({ link, client: 'win11-24h2', server: 'samba', observations: { signingRequired: true } });
    expect(unseen.recommendations.some((recommendation) => recommendation.id === 'samba.signing-algorithms')).toBe(false);
  });

  it("on a share on this machine, weighs both ends' signing at the rates measured here, as the diagnosis does", () => {
    // Published AES-128-GMAC is 0.13 ns a byte each side; this machine signed at 0.05 (2026-11-28), plus 13 us a
    // message. With the published rates the promise of the change came 15-31% slow for a 1 GB file on loopback.
    const link = { bandwidthBitsPerSecond: 20e9, rttMs: 0.1, lossRate: 0, hosts: LOOPBACK_HOSTS };
    const seen = { signingRequired: true, signingChoice: { chosen: 'AES-128-CMAC' as const, passedOver: ['AES-128-GMAC' as const] } };
    const here = {
      'AES-128-GMAC': { protect: 20e9, check: 20e9, messageSeconds: 13e-6 },
      'AES-128-CMAC': { protect: 1.2e9, check: 1.2e9, messageSeconds: 28e-6 },
    };
    const writeOf = (observations: Observations) =>
      recommend({ link, client: 'win11-24h2', server: 'samba', observations })
        .recommendations.find((recommendation) => recommendation.id === 'samba.signing-algorithms')
        ?.tests.find((test) => test.test === 'write file:1GB');
    const published = writeOf(seen);
    const measured = writeOf({ ...seen, cryptoOnThisMachine: here });
    const gmac = { protection: { kind: 'signing' as const, algorithm: 'AES-128-GMAC' as const }, channels: 1 };
    const sideHere = { rates: here, scalesWithChannels: true };
    const expected = predictTransfer(
      { ...CLIENT_PROFILES['win11-24h2'], crypto: sideHere },
      serverAsSeen({ ...SERVER_PROFILES.samba, crypto: { ...SERVER_PROFILES.samba.crypto, rates: here } }, 'write', seen),
      'write',
      parseWorkload('file:1GB'),
      link,
      gmac,
    ).seconds;
    expect(measured?.after).toBeCloseTo(expected, 6);
    expect(measured?.after ?? 0).toBeLessThan(published?.after ?? 0);
  });
});

/** A loopback calibration's costs (2026-11-28, Samba signing with AES-128-CMAC). */
const LOOPBACK_HOSTS = {
  read: { secondsPerRequest: 27e-6, secondsPerByte: 0.41e-9 },
  write: { secondsPerRequest: 30e-6, secondsPerByte: 0.48e-9 },
  metadataSeconds: 20e-6,
};
