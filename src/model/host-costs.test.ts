import { describe, expect, it } from 'vitest';
import { CLIENT_PROFILES, KIB, MIB } from './client-profiles.js';
import type { HostCosts } from './host-costs.js';
import {
  costsFromSamples,
  exchangeSeconds,
  fileFillSeconds,
  fillFromRuns,
  fitRequestCosts,
  hostBytesPerSecond,
  hostCostsFor,
  hostSecondsFor,
  metadataSecondsFrom,
  runSpread,
  withSustainedWrite,
} from './host-costs.js';
import { SINGLE_UNPROTECTED, transferShape } from './in-flight.js';
import { predictTransfer } from './predict.js';
import { protectionSecondsPerExchange } from './crypto-cost.js';
import { SERVER_PROFILES } from './server-profiles.js';
import { parseWorkload } from './workloads.js';

// Costs of the size a loopback calibration measured (2026-11-25): 65 µs a request, 0.54 ns a byte reading.
const LOOPBACK: HostCosts = {
  read: { secondsPerRequest: 65e-6, secondsPerByte: 0.54e-9 },
  write: { secondsPerRequest: 62e-6, secondsPerByte: 0.73e-9 },
  protected: {
    protection: { kind: 'signing', algorithm: 'AES-128-GMAC' },
    read: { secondsPerRequest: 118e-6, secondsPerByte: 0.63e-9 },
    write: { secondsPerRequest: 100e-6, secondsPerByte: 0.78e-9 },
  },
  metadataSeconds: 300e-6,
};

const sample = (requestBytes: number, bytes: number, perRequest: number, perByte: number) => ({
  requestBytes,
  requests: bytes / requestBytes,
  bytes,
  seconds: (bytes / requestBytes) * perRequest + bytes * perByte,
});

describe('host costs: fitted from two calibration transfers', () => {
  it('solves a cost per request and per byte exactly from two request sizes', () => {
    const fitted = fitRequestCosts(sample(64 * KIB, 8 * MIB, 65e-6, 0.5e-9), sample(2 * MIB, 32 * MIB, 65e-6, 0.5e-9));
    expect(fitted.secondsPerRequest).toBeCloseTo(65e-6, 12);
    expect(fitted.secondsPerByte).toBeCloseTo(0.5e-9, 15);
  });

  it('where noise makes small requests cheaper per byte than large ones, the costs are all per byte, at the slower rate', () => {
    const small = { requestBytes: 64 * KIB, requests: 128, bytes: 8 * MIB, seconds: 0.004 };
    const large = { requestBytes: 2 * MIB, requests: 16, bytes: 32 * MIB, seconds: 0.02 };
    const fitted = fitRequestCosts(small, large);
    expect(fitted.secondsPerRequest).toBe(0);
    expect(fitted.secondsPerByte).toBeCloseTo(Math.max(0.004 / (8 * MIB), 0.02 / (32 * MIB)), 15);
  });

  it('a lone request waits at least the measured turnaround, plus the work per byte of what it carries beyond 64 KiB', () => {
    const costs = { secondsPerRequest: 0, secondsPerByte: 1e-9 };
    // A LAN: the line paced the calibration (no work per request seen), the turnaround was measured alone.
    expect(hostSecondsFor(costs, 64 * KIB, 64 * KIB, 300e-6)).toBeCloseTo(300e-6, 12);
    expect(hostSecondsFor(costs, 1 * MIB, 1 * MIB, 300e-6)).toBeCloseTo(300e-6 + (MIB - 64 * KIB) * 1e-9, 12);
    // Loopback: where the work per request and per byte is the larger, it holds.
    expect(hostSecondsFor({ secondsPerRequest: 400e-6, secondsPerByte: 1e-9 }, 64 * KIB, 64 * KIB, 300e-6)).toBeCloseTo(400e-6 + 64 * KIB * 1e-9, 12);
  });

  it('refuses a sample without requests, bytes or time', () => {
    expect(() => fitRequestCosts({ requestBytes: 1, requests: 0, bytes: 1, seconds: 1 }, sample(2 * MIB, 32 * MIB, 1e-6, 1e-9))).toThrow(RangeError);
  });

  it('takes the costs measured with the same protection, and otherwise the plain ones with the crypto left to add', () => {
    expect(hostCostsFor(LOOPBACK, 'read', { kind: 'signing', algorithm: 'AES-128-GMAC' })).toEqual({
      costs: LOOPBACK.protected?.read,
      includesProtection: true,
    });
    expect(hostCostsFor(LOOPBACK, 'read', { kind: 'signing', algorithm: 'AES-128-CMAC' })).toEqual({ costs: LOOPBACK.read, includesProtection: false });
    expect(hostCostsFor(LOOPBACK, 'write', { kind: 'none' })).toEqual({ costs: LOOPBACK.write, includesProtection: true });
  });

  it("adds the storage's sustained cost, found by a long write, to every write and no read", () => {
    const slower = withSustainedWrite(LOOPBACK, { bytes: 256 * MIB, measuredSeconds: 0.8, modelSeconds: 0.2 });
    expect(slower.storageWriteSecondsPerByte).toBeCloseTo(0.6 / (256 * MIB), 15);
    expect(hostCostsFor(slower, 'write', { kind: 'none' }).costs.secondsPerByte).toBeCloseTo(0.73e-9 + 0.6 / (256 * MIB), 15);
    // Signed, the storage works while the client signs: the slower of the two per byte.
    expect(hostCostsFor(slower, 'write', { kind: 'signing', algorithm: 'AES-128-GMAC' }).costs.secondsPerByte).toBeCloseTo(
      Math.max(0.78e-9, 0.73e-9 + 0.6 / (256 * MIB)),
      15,
    );
    expect(hostCostsFor(slower, 'read', { kind: 'none' }).costs).toEqual(LOOPBACK.read);
    // A long write no slower than the model says nothing new.
    expect(withSustainedWrite(LOOPBACK, { bytes: 256 * MIB, measuredSeconds: 0.2, modelSeconds: 0.25 })).toBe(LOOPBACK);
  });
});

describe('host costs in the model', () => {
  const bare = { bandwidthBitsPerSecond: 20e9, rttMs: 0.1 };
  const loopback = { ...bare, hosts: LOOPBACK };
  const server = SERVER_PROFILES.samba;

  it('are a budget of their own: the rate the hosts allow at the request size', () => {
    const shape = transferShape(CLIENT_PROFILES['pipefill-max'], server, 'read', 256 * MIB, loopback, SINGLE_UNPROTECTED);
    const hosts = shape.budgets.find((budget) => budget.layer === 'hosts');
    expect(hosts?.bytesPerSecond).toBeCloseTo(hostBytesPerSecond(LOOPBACK.read, shape.requestBytes), 0);
    expect(predictTransfer(CLIENT_PROFILES['pipefill-max'], server, 'read', parseWorkload('file:256MiB'), loopback).limitedBy).toBe('hosts');
  });

  it('a protected copy whose hosts spend most of their time on the protection is limited by it, not by the hosts', () => {
    const cheap = { ...LOOPBACK, read: { secondsPerRequest: 10e-6, secondsPerByte: 0.1e-9 } };
    const signing = { protection: { kind: 'signing' as const, algorithm: 'AES-128-CMAC' as const }, channels: 1 };
    const slowCmac = { ...CLIENT_PROFILES['linux-cifs'], crypto: { rates: { 'AES-128-CMAC': { protect: 1e9, check: 1e9 } }, scalesWithChannels: false } };
    const shape = transferShape(slowCmac, server, 'read', 256 * MIB, { ...bare, hosts: cheap }, signing);
    expect(shape.budgets.filter((budget) => budget.layer === 'signing')).toHaveLength(1);
    expect(shape.budgets.some((budget) => budget.layer === 'hosts')).toBe(false);
    // Where the hosts' own work is the larger part, they are the limit.
    const costly = { ...LOOPBACK, read: { secondsPerRequest: 10e-6, secondsPerByte: 5e-9 } };
    expect(transferShape(slowCmac, server, 'read', 256 * MIB, { ...bare, hosts: costly }, signing).budgets.some((budget) => budget.layer === 'hosts')).toBe(
      true,
    );
  });

  it('without them the same copy is expected at the line, and is several times faster', () => {
    const withHosts = predictTransfer(CLIENT_PROFILES['win11-24h2'], server, 'write', parseWorkload('file:256MiB'), loopback);
    const without = predictTransfer(CLIENT_PROFILES['win11-24h2'], server, 'write', parseWorkload('file:256MiB'), bare);
    expect(without.limitedBy).not.toBe('hosts');
    expect(withHosts.seconds / without.seconds).toBeGreaterThan(1.5);
  });

  it("each file's pipeline fills once on a share on this machine: the folder of small files pays it per file, the file once", () => {
    // Loopback, 2026-11-28: 2 MiB writes' first reply 1.2-4.7 ms beyond the steady rate; 15 files 27-40 ms late.
    const fill = { seconds: 2e-3, requestBytes: 2 * MIB };
    const filled = { ...bare, hosts: { ...LOOPBACK, write: { ...LOOPBACK.write, fill } } };
    const client = CLIENT_PROFILES['pipefill-max'];
    const dirset = parseWorkload('tr3869-dirset:0.05');
    const added = predictTransfer(client, server, 'write', dirset, filled).seconds - predictTransfer(client, server, 'write', dirset, loopback).seconds;
    // Every file of a request or more (14 of the 15; the first, of 52 KB, is one request with no pipeline to fill).
    const filling = dirset.files.filter((file) => file.bytes >= fill.requestBytes).length;
    expect(filling).toBe(14);
    expect(added).toBeCloseTo(filling * fill.seconds, 9);
    const file = parseWorkload('file:256MiB');
    expect(predictTransfer(client, server, 'write', file, filled).seconds - predictTransfer(client, server, 'write', file, loopback).seconds).toBeCloseTo(
      fill.seconds,
      9,
    );
    // Reads have a fill of their own: none measured here, none added.
    expect(predictTransfer(client, server, 'read', dirset, filled).seconds).toBe(predictTransfer(client, server, 'read', dirset, loopback).seconds);
  });

  it('adds no fill across a network, where the round trip is the fill, nor to a client with one request at a time', () => {
    const costs = { secondsPerRequest: 0, secondsPerByte: 0, fill: { seconds: 3e-3, requestBytes: MIB } };
    expect(fileFillSeconds({ acrossNetwork: true }, costs, MIB, 8, 4 * MIB)).toBe(0);
    expect(fileFillSeconds({}, costs, 64 * KIB, 1, 4 * MIB)).toBe(0);
    expect(fileFillSeconds({}, costs, MIB, 8, 4 * MIB)).toBe(3e-3);
    // A first request smaller than the one measured fills in proportion: a 256 KiB file, or 256 KiB requests.
    expect(fileFillSeconds({}, costs, MIB, 8, 256 * KIB)).toBeCloseTo(0.75e-3, 12);
    expect(fileFillSeconds({}, costs, 256 * KIB, 8, 4 * MIB)).toBeCloseTo(0.75e-3, 12);
    expect(fileFillSeconds({}, { secondsPerRequest: 0, secondsPerByte: 0 }, MIB, 8, 4 * MIB)).toBe(0);
  });

  it('takes the fill from the median run, where the runs timed one', () => {
    const run = (fillSeconds?: number) => ({ ...sample(MIB, 64 * MIB, 0, 0.5e-9), ...(fillSeconds === undefined ? {} : { fillSeconds }) });
    expect(fillFromRuns([run(1e-3), run(5e-3), run(2e-3)])).toEqual({ seconds: 2e-3, requestBytes: MIB });
    expect(fillFromRuns([run(), run(3e-3)])).toEqual({ seconds: 3e-3, requestBytes: MIB });
    expect(fillFromRuns([run(), run()])).toBeUndefined();
  });

  it("each metadata exchange waits on the server's file-system work as well as the round trip", () => {
    const dirset = parseWorkload('tr3869-dirset:0.05');
    const client = CLIENT_PROFILES['win11-24h2'];
    const plain = predictTransfer(client, server, 'write', dirset, bare);
    const measured = predictTransfer(client, server, 'write', dirset, loopback);
    expect(measured.breakdown.metadataSeconds - plain.breakdown.metadataSeconds).toBeCloseTo(plain.breakdown.metadataRoundTrips * LOOPBACK.metadataSeconds, 9);
  });

  it("a synchronous client's every request waits on the server's measured turnaround", () => {
    const lan = { bandwidthBitsPerSecond: 1e9, rttMs: 0.8 };
    const none = { secondsPerRequest: 0, secondsPerByte: 0 };
    const measured = { ...lan, hosts: { read: none, write: none, metadataSeconds: 0, turnaroundSeconds: { read: 280e-6, write: 0 } } };
    const xp = CLIENT_PROFILES['xp-smb1'];
    const file = parseWorkload('file:100MiB');
    const plain = predictTransfer(xp, server, 'read', file, lan);
    const withTurnaround = predictTransfer(xp, server, 'read', file, measured);
    const requests = (100 * MIB) / plain.requestBytes;
    expect(withTurnaround.seconds - plain.seconds).toBeCloseTo(requests * 280e-6, 1);
    expect(predictTransfer(xp, server, 'write', file, measured).seconds).toBeCloseTo(predictTransfer(xp, server, 'write', file, lan).seconds, 6);
  });

  it('takes the costs from the transfers the hosts paced: both, the small only (per request), the large only (per byte), neither', () => {
    const small = sample(32 * KIB, 8 * MIB, 345e-6, 0);
    const large = sample(MIB, 64 * MIB, 0, 9e-9);
    expect(costsFromSamples(small, undefined)).toEqual({ secondsPerRequest: small.seconds / small.requests, secondsPerByte: 0 });
    expect(costsFromSamples(small, undefined).secondsPerRequest).toBeCloseTo(345e-6, 12);
    expect(costsFromSamples(undefined, large).secondsPerByte).toBeCloseTo(9e-9, 15);
    expect(costsFromSamples(undefined, undefined)).toEqual({ secondsPerRequest: 0, secondsPerByte: 0 });
    expect(costsFromSamples(small, large)).toEqual(fitRequestCosts(small, large));
  });

  it("across a LAN the hosts' work caps the rate beside the line's and adds only the turnaround to a request", () => {
    // The lab at 1 Gb/s / 0.5 ms: 32 KiB requests 16 deep moved about 760 Mb/s, 64 KiB and larger filled the line.
    const lan = { bandwidthBitsPerSecond: 1e9, rttMs: 0.88 };
    const hosts: HostCosts = {
      read: { secondsPerRequest: 345e-6, secondsPerByte: 0 },
      write: { secondsPerRequest: 345e-6, secondsPerByte: 0 },
      metadataSeconds: 0,
      turnaroundSeconds: { read: 190e-6, write: 100e-6 },
      acrossNetwork: true,
    };
    const file = parseWorkload('file:185MiB');
    const on = (id: 'win7-smb1' | 'win7-smb2' | 'xp-smb1', link: typeof lan | (typeof lan & { hosts: HostCosts })) =>
      predictTransfer(CLIENT_PROFILES[id], server, 'read', file, link);
    const smb1 = on('win7-smb1', { ...lan, hosts });
    expect(smb1.limitedBy).toBe('hosts');
    expect((185 * MIB * 8) / smb1.seconds / 1e6).toBeCloseTo((32 * KIB * 8) / 345e-6 / 1e6, -1);
    // 64 KiB requests: the hosts allow 1.5 Gb/s, the line 1 Gb/s.
    expect(on('win7-smb2', { ...lan, hosts }).seconds).toBeCloseTo(on('win7-smb2', lan).seconds, 6);
    // A synchronous client waits the turnaround, not the pipeline's work per request, on each request.
    const xp = on('xp-smb1', { ...lan, hosts });
    const requests = Math.ceil((185 * MIB) / xp.requestBytes);
    expect(xp.seconds - on('xp-smb1', lan).seconds).toBeCloseTo(requests * 190e-6, 1);
    expect(hostSecondsFor(hosts.read, 32 * KIB, 32 * KIB, 190e-6, true)).toBeCloseTo(190e-6, 12);
  });

  it('leave a long path alone: a WAN copy is paced by the path, not by microseconds of host work', () => {
    const wan = { bandwidthBitsPerSecond: 155e6, rttMs: 32 };
    const withHosts = predictTransfer(CLIENT_PROFILES['win11-24h2'], server, 'read', parseWorkload('file:100MB'), { ...wan, hosts: LOOPBACK });
    const without = predictTransfer(CLIENT_PROFILES['win11-24h2'], server, 'read', parseWorkload('file:100MB'), wan);
    expect(withHosts.limitedBy).toBe(without.limitedBy);
    expect(withHosts.seconds / without.seconds).toBeLessThan(1.03);
  });
});

describe("the calibration's own noise", () => {
  it('is how far the runs stray from their median, relative to it; one stalled run of three does not move it', () => {
    const run = (seconds: number) => ({ requestBytes: 65536, requests: 16, bytes: 1 << 20, seconds });
    // 0.10, 0.12, 0.15: the median 0.12; deviations 0.02, 0, 0.03; their median 0.02, a sixth of 0.12.
    expect(runSpread([run(0.1), run(0.12), run(0.15)])).toBeCloseTo(1 / 6, 10);
    expect(runSpread([run(0.1), run(0.1), run(0.9)])).toBe(0);
    expect(runSpread([run(0.1)])).toBe(0);
    expect(runSpread([])).toBe(0);
  });
});

describe('host costs: the metadata exchange', () => {
  // Creates about twice a close, as smbd's were on loopback (2026-11-27), with a little jitter each.
  const files = [
    { createMs: 0.21, closeMs: 0.09 },
    { createMs: 0.19, closeMs: 0.11 },
    { createMs: 0.22, closeMs: 0.08 },
    { createMs: 0.2, closeMs: 0.1 },
  ];

  it("is a file's two exchanges averaged, less the round trip: not the edge between creates and closes", () => {
    expect(metadataSecondsFrom(files, 0.05)).toBeCloseTo(0.1e-3, 6);
    // One file stalled (both its exchanges twice as slow) leaves it where it was. Pooled, the median of the exchanges
    // moved to the creates' edge: 0.08 0.09 0.11 0.19 | 0.2 0.21 0.22 0.4, 145 us.
    const stalled = [...files.slice(0, 3), { createMs: 0.4, closeMs: 0.2 }];
    expect(metadataSecondsFrom(stalled, 0.05)).toBeCloseTo(0.1e-3, 6);
  });

  it('is never below nothing, and nothing without files', () => {
    expect(metadataSecondsFrom(files, 1)).toBe(0);
    expect(metadataSecondsFrom([], 0.05)).toBe(0);
  });
});

describe('host costs: a protected metadata exchange', () => {
  const client = CLIENT_PROFILES['win11-24h2'].crypto;
  const server = SERVER_PROFILES.samba.crypto;
  const gmac = { kind: 'signing', algorithm: 'AES-128-GMAC' } as const;
  const cmac = { kind: 'signing', algorithm: 'AES-128-CMAC' } as const;
  const modelled = (protection: typeof gmac | typeof cmac) => protectionSecondsPerExchange(protection, client, server);
  // Loopback smbd, 2026-11-28: a create or a close 0.17 ms plain and 0.32-0.35 ms signed with AES-128-GMAC (0.05 ms round trip).
  const signed = { protection: gmac, read: LOOPBACK.read, write: LOOPBACK.write, metadataSeconds: 280e-6 };
  const measured: HostCosts = { ...LOOPBACK, metadataSeconds: 120e-6, protected: signed };

  it('is what the calibration timed with the same protection', () => {
    expect(exchangeSeconds(measured, gmac, client, server)).toBeCloseTo(280e-6, 12);
    // Unprotected: the plain exchange, nothing added.
    expect(exchangeSeconds(measured, { kind: 'none' }, client, server)).toBe(120e-6);
  });

  it("is what the model's folder takes, and says it holds the signing", () => {
    const loopback = { bandwidthBitsPerSecond: 10e9, rttMs: 0.05, hosts: measured };
    const session = { ...SINGLE_UNPROTECTED, protection: gmac };
    const folder = predictTransfer(CLIENT_PROFILES['win11-24h2'], SERVER_PROFILES.samba, 'write', parseWorkload('tr3869-dirset'), loopback, session);
    expect(folder.breakdown.metadataSeconds).toBeCloseTo(folder.breakdown.metadataRoundTrips * (0.05e-3 + 280e-6), 9);
    expect(folder.explanation).toMatch(/280 µs of file-system work and signing each|file-system work and signing takes 280 µs/);
  });

  it("keeps the server's work on a signed message for another algorithm, moved by the model's difference between the two", () => {
    // A promise made on a CMAC-only server for AES-128-GMAC: the signed exchange's own work stays.
    const onCmac: HostCosts = { ...measured, protected: { ...signed, protection: cmac } };
    expect(exchangeSeconds(onCmac, gmac, client, server)).toBeCloseTo(280e-6 - modelled(cmac) + modelled(gmac), 12);
    expect(exchangeSeconds(onCmac, gmac, client, server)).toBeGreaterThan(120e-6 + modelled(gmac));
  });

  it("is the plain exchange and the model's protection where no protected exchange was timed, never less than the plain", () => {
    const older: HostCosts = { ...measured, protected: { protection: gmac, read: LOOPBACK.read, write: LOOPBACK.write } };
    expect(exchangeSeconds(older, gmac, client, server)).toBeCloseTo(120e-6 + modelled(gmac), 12);
    expect(exchangeSeconds(undefined, gmac, client, server)).toBeCloseTo(modelled(gmac), 12);
    const faster: HostCosts = { ...measured, protected: { ...signed, metadataSeconds: 50e-6 } };
    expect(exchangeSeconds(faster, gmac, client, server)).toBeCloseTo(120e-6 + modelled(gmac), 12);
  });
});
