import { describe, expect, it } from 'vitest';
import { CLIENT_PROFILES } from './client-profiles.js';
import { PipefillInputError } from './errors.js';
import { negotiate } from './negotiation.js';
import { predict } from './predict.js';
import { SERVER_PROFILES } from './server-profiles.js';

const c = CLIENT_PROFILES;
const s = SERVER_PROFILES;

describe('negotiate', () => {
  it('Windows 11 24H2 signs everything, with AES-GMAC against Server 2022 and 2025 and AES-CMAC against 2016', () => {
    expect(negotiate(c['win11-24h2'], s.win2022)).toMatchObject({ dialect: '3.1.1', protection: { kind: 'signing', algorithm: 'AES-128-GMAC' } });
    expect(negotiate(c['win11-24h2'], s.win2025).protection).toEqual({ kind: 'signing', algorithm: 'AES-128-GMAC' });
    expect(negotiate(c['win11-24h2'], s.win2012plus).protection).toEqual({ kind: 'signing', algorithm: 'AES-128-CMAC' });
    expect(negotiate(c['win11-24h2'], s.win2022).reason).toMatch(/requires signing$/);
  });

  it('Windows 10 against Server 2022 signs nothing unless asked', () => {
    expect(negotiate(c['win10-smb3'], s.win2022).protection).toEqual({ kind: 'none' });
    expect(negotiate(c['win10-smb3'], s.win2022, 'signing').protection).toEqual({ kind: 'signing', algorithm: 'AES-128-GMAC' });
    expect(negotiate(c['win10-smb3'], s.win2022, 'AES-128-CMAC').protection).toEqual({ kind: 'signing', algorithm: 'AES-128-CMAC' });
  });

  it('Azure Files encrypts every session, with the client’s first cipher it accepts', () => {
    expect(negotiate(c['win11-24h2'], s['azure-files'])).toMatchObject({ dialect: '3.1.1', protection: { kind: 'encryption', algorithm: 'AES-128-GCM' } });
    expect(negotiate(c['win11-24h2'], s['azure-files'], 'AES-256-GCM').protection).toEqual({ kind: 'encryption', algorithm: 'AES-256-GCM' });
    // AES-256-CCM is not among Azure's channel ciphers.
    expect(() => negotiate(c['win11-24h2'], s['azure-files'], 'AES-256-CCM')).toThrow(PipefillInputError);
    // Linux cifs.ko sends no signing context: AES-CMAC when it signs.
    expect(negotiate(c['linux-cifs'], s.samba, 'signing').protection).toEqual({ kind: 'signing', algorithm: 'AES-128-CMAC' });
  });

  it('signs SMB 2.x with HMAC-SHA256, and cannot encrypt it', () => {
    expect(negotiate(c['win7-smb2'], s.samba, 'signing')).toMatchObject({ dialect: '2.1', protection: { kind: 'signing', algorithm: 'HMAC-SHA256' } });
    expect(() => negotiate(c['win7-smb2'], s.samba, 'encryption')).toThrow(/share no cipher/);
  });

  it('refuses what cannot happen, and never models protection turned off where it is required', () => {
    expect(() => negotiate(c['vista-smb2'], s['azure-files'])).toThrow(/share no SMB dialect/);
    expect(() => negotiate(c['win11-24h2'], s.win2022, 'none')).toThrow(/requires signing/);
    expect(() => negotiate(c['win10-smb3'], s['azure-files'], 'none')).toThrow(/requires encryption/);
    expect(() => negotiate(c['win10-smb3'], s['azure-files'], 'signing')).toThrow(/requires encryption/);
  });
});

describe('predict with signing, encryption and multichannel', () => {
  const lan = { bandwidthBitsPerSecond: 10e9, rttMs: 0.2 };
  const base = { client: 'linux-cifs', server: 'samba', op: 'read', workload: 'file:10GB', link: lan } as const;

  it('names signing when AES-CMAC is slower than a 25 Gb/s LAN, and says by how much', () => {
    const fast = { ...base, client: 'pipefill-max', link: { bandwidthBitsPerSecond: 25e9, rttMs: 0.2 } } as const;
    const signed = predict({ ...fast, security: 'AES-128-CMAC' });
    expect(signed.limitedBy).toBe('signing');
    expect(signed.explanation).toMatch(/AES-128-CMAC/);
    expect(signed.explanation).toMatch(/the signature, not the link, limits you/);
    // 3 GHz / 2.5 cycles per byte = 1.2 GB/s = 9.6 Gb/s of data at most.
    expect(signed.throughputBitsPerSecond).toBeLessThan(9.6e9);
    const unsigned = predict({ ...fast, security: 'none' });
    expect(unsigned.limitedBy).not.toBe('signing');
    expect(unsigned.seconds).toBeLessThan(signed.seconds);
  });

  it('puts GMAC and GCM ahead of CMAC and CCM, as their cost per byte says', () => {
    const win = { ...base, client: 'win11-24h2', server: 'win2022' } as const;
    expect(predict({ ...win, security: 'AES-128-GMAC' }).seconds).toBeLessThan(predict({ ...win, security: 'AES-128-CMAC' }).seconds);
    expect(predict({ ...win, security: 'AES-128-GCM' }).seconds).toBeLessThan(predict({ ...win, security: 'AES-128-CCM' }).seconds);
  });

  it('leaves a branch link to the network: 155 Mb/s is far below any cipher', () => {
    const wan = predict({ ...base, client: 'win11-24h2', server: 'azure-files', link: { bandwidthBitsPerSecond: 155e6, rttMs: 32 } });
    expect(wan.negotiated.protection).toEqual({ kind: 'encryption', algorithm: 'AES-128-GCM' });
    expect(['encryption', 'signing']).not.toContain(wan.limitedBy);
  });

  it('multiplies per-connection budgets by the channels, within the wire, and lets Windows spread its crypto', () => {
    const win = { ...base, client: 'win11-24h2', server: 'win2022', security: 'AES-128-CCM' } as const;
    const one = predict(win);
    const four = predict({ ...win, channels: 4 });
    expect(one.limitedBy).toBe('encryption');
    expect(four.seconds).toBeLessThan(one.seconds);
    // Samba serves a session's channels in one process: its crypto does not scale.
    const samba = { ...base, security: 'AES-128-CCM' } as const;
    expect(predict({ ...samba, channels: 4 }).layers.find((layer) => layer.layer === 'encryption')?.bytesPerSecond).toBeCloseTo(
      predict(samba).layers.find((layer) => layer.layer === 'encryption')?.bytesPerSecond ?? 0,
      0,
    );
    expect(() => predict({ ...base, client: 'win10-smb3', server: 'netapp-tr3869', channels: 2 })).toThrow(/does not accept SMB multichannel/);
    expect(() => predict({ ...base, channels: 33 })).toThrow(/1 to 32 connections/);
  });

  it('a shallow bottleneck queue holds one flow below the line and names itself', () => {
    const link = { bandwidthBitsPerSecond: 155e6, rttMs: 32 };
    const deep = predict({ ...base, client: 'pipefill-max', link });
    const shallow = predict({ ...base, client: 'pipefill-max', link: { ...link, bufferBytes: (155e6 / 8) * 0.032 * 0.125 } });
    expect(deep.limitedBy).not.toBe('bottleneck-queue');
    expect(shallow.limitedBy).toBe('bottleneck-queue');
    expect(shallow.explanation).toMatch(/buffer is 13% of the path's/);
    expect(shallow.seconds / deep.seconds).toBeGreaterThan(1.02);
  });
});

describe('a synchronous pipeline waits on the crypto of every request', () => {
  it('says so in its sentence', () => {
    const shallow = predict({
      client: 'linux-cifs',
      server: 'samba',
      op: 'read',
      workload: 'file:10GB',
      link: { bandwidthBitsPerSecond: 10e9, rttMs: 0.2 },
      security: 'signing',
    });
    expect(shallow.limitedBy).toBe('copy-pipeline');
    expect(shallow.explanation).toMatch(/Each request also waits on signing with AES-128-CMAC/);
  });
});
