import { describe, expect, it } from 'vitest';
import { CLIENT_PROFILES, KIB, MIB } from './client-profiles.js';
import { creditBytes, creditCharge, requestBytes, transferShape } from './in-flight.js';
import { bdpBytes, payloadEfficiency } from './link.js';
import { SERVER_PROFILES } from './server-profiles.js';

describe('bdpBytes', () => {
  it('matches the reference examples (Pinkerton, SDC 2008: the BDP examples)', () => {
    expect(bdpBytes({ bandwidthBitsPerSecond: 1e9, rttMs: 76 }) / 1e6).toBeCloseTo(9.5, 1);
    expect(bdpBytes({ bandwidthBitsPerSecond: 155e6, rttMs: 592 }) / 1e6).toBeCloseTo(11.5, 1);
  });
});

describe('payloadEfficiency', () => {
  it('is one MSS per framed packet', () => {
    expect(payloadEfficiency(false)).toBeCloseTo(1460 / 1514, 9);
    expect(payloadEfficiency(true)).toBeCloseTo(1448 / 1514, 9);
  });
});

describe('request sizes and credits', () => {
  it('keeps Windows 7 at 64 KiB even against a large-MTU server (large MTU off by default)', () => {
    expect(requestBytes(CLIENT_PROFILES['win7-smb2'], SERVER_PROFILES.samba, 'read')).toBe(64 * KIB);
  });
  it('lets Windows 10 send 1 MiB requests, charged 16 credits each', () => {
    const request = requestBytes(CLIENT_PROFILES['win10-smb3'], SERVER_PROFILES.win2012plus, 'write');
    expect(request).toBe(1 * MIB);
    expect(creditCharge(request)).toBe(16);
    expect(creditBytes(CLIENT_PROFILES['win10-smb3'], SERVER_PROFILES.win2012plus, request)).toBe((8192 / 16) * MIB);
  });
  it('caps a large-MTU client at 64 KiB against an SMB 2.0 server', () => {
    expect(requestBytes(CLIENT_PROFILES['win10-smb3'], SERVER_PROFILES['netapp-tr3869'], 'read')).toBe(64 * KIB);
  });
  it('uses the SMB1 multiplex count in place of credits', () => {
    expect(creditBytes(CLIENT_PROFILES['win7-smb1'], SERVER_PROFILES['netapp-tr3869'], 32 * KIB)).toBe(50 * 32 * KIB);
  });
  it("applies Vista RTM's credit throttle against Server 2008 RTM", () => {
    expect(creditBytes(CLIENT_PROFILES['vista-smb2'], SERVER_PROFILES['win2008-rtm'], 64 * KIB)).toBe(3_125_000);
  });
});

describe('transferShape', () => {
  const link = { bandwidthBitsPerSecond: 155.52e6, rttMs: 32 };

  it('follows table B for Windows 7 (8 x 512 KiB for a 3 MB file)', () => {
    const shape = transferShape(CLIENT_PROFILES['win7-smb2'], SERVER_PROFILES['netapp-tr3869'], 'read', 3_000_000, link);
    expect(shape.depth).toBe(6);
    expect(shape.chunkBytes).toBe(512 * KIB);
    expect(shape.requestBytes).toBe(64 * KIB);
  });

  it('follows table A for Vista RTM: a small file in one sector-rounded chunk', () => {
    const shape = transferShape(CLIENT_PROFILES['vista-smb2'], SERVER_PROFILES['netapp-tr3869'], 'read', 300_000, link);
    expect(shape.depth).toBe(1);
    expect(shape.chunkBytes).toBe(300_032);
  });

  it('sizes the Pipefill pipeline to twice the BDP, and lets the credits say when they grant less', () => {
    const link = { bandwidthBitsPerSecond: 1e9, rttMs: 75 };
    const shape = transferShape(CLIENT_PROFILES['pipefill-max'], SERVER_PROFILES.samba, 'read', 1e9, link);
    expect(shape.requestBytes).toBe(4 * MIB);
    expect(shape.depth * shape.chunkBytes).toBeGreaterThanOrEqual(2 * bdpBytes(link));
    const tight = transferShape(CLIENT_PROFILES['pipefill-max'], SERVER_PROFILES['win2008-rtm'], 'read', 1e9, link);
    const credits = tight.budgets.find((b) => b.layer === 'credits');
    const pipeline = tight.budgets.find((b) => b.layer === 'copy-pipeline');
    expect(credits?.bytesInFlight).toBeLessThanOrEqual(3_125_000);
    expect(credits?.bytesPerSecond).toBeLessThan(pipeline?.bytesPerSecond ?? 0);
  });

  it('adds a packet-loss budget only when the link loses packets', () => {
    const clean = transferShape(CLIENT_PROFILES['win10-smb3'], SERVER_PROFILES.samba, 'read', 1e8, link);
    const lossy = transferShape(CLIENT_PROFILES['win10-smb3'], SERVER_PROFILES.samba, 'read', 1e8, { ...link, lossRate: 0.01 });
    expect(clean.budgets.map((b) => b.layer)).not.toContain('packet-loss');
    const loss = lossy.budgets.find((b) => b.layer === 'packet-loss');
    // Mathis: 1460 B / 32 ms x 1.22 / 0.1 = 557 KB/s.
    expect(loss?.bytesPerSecond).toBeCloseTo(((1460 / 0.032) * Math.sqrt(1.5)) / 0.1, 0);
  });
});
