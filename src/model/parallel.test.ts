import { describe, expect, it } from 'vitest';
import { CLIENT_PROFILES } from './client-profiles.js';
import { parallelSeconds } from './parallel.js';
import { predictTransfer } from './predict.js';
import { SERVER_PROFILES } from './server-profiles.js';
import { parseWorkload } from './workloads.js';

const client = CLIENT_PROFILES['win10-smb3'];
const server = SERVER_PROFILES.win2012plus;
const dirset = parseWorkload('tr3869-dirset');

describe('parallelSeconds', () => {
  it('is the plain prediction with one lane', () => {
    const link = { bandwidthBitsPerSecond: 100e6, rttMs: 75 };
    expect(parallelSeconds(client, server, 'write', dirset, link, 1)).toBe(predictTransfer(client, server, 'write', dirset, link).seconds);
  });

  it('overlaps round trips across lanes on a long link, down to the wire time', () => {
    const link = { bandwidthBitsPerSecond: 100e6, rttMs: 75 };
    const one = parallelSeconds(client, server, 'write', dirset, link, 1);
    const eight = parallelSeconds(client, server, 'write', dirset, link, 8);
    const many = parallelSeconds(client, server, 'write', dirset, link, 128);
    expect(eight).toBeLessThan(one / 2);
    expect(many).toBeLessThanOrEqual(eight);
    expect(many).toBeGreaterThanOrEqual((dirset.totalBytes * 8) / 100e6);
  });

  it("shares the connection's TCP windows among the lanes: a server window that holds one lane holds them all", () => {
    // The demo's link, a Samba whose SO_RCVBUF holds writes to about 80 KiB: 80 KiB a round trip is 16 Mb/s, lanes or not.
    const link = { bandwidthBitsPerSecond: 96.5e6, rttMs: 40.1 };
    const held = { ...SERVER_PROFILES.samba, tcp: { ...SERVER_PROFILES.samba.tcp, receiveWindowBytes: 81_408 } };
    const windowSeconds = dirset.totalBytes / (81_408 / 0.0401);
    const win11 = CLIENT_PROFILES['win11-24h2'];
    for (const lanes of [2, 8, 32]) expect(parallelSeconds(win11, held, 'write', dirset, link, lanes)).toBeGreaterThanOrEqual(0.95 * windowSeconds);
    // Reads are the server's send window's, which SO_RCVBUF leaves alone: lanes still overlap their round trips there.
    expect(parallelSeconds(win11, held, 'read', dirset, link, 8)).toBeLessThan(parallelSeconds(win11, held, 'read', dirset, link, 1));
  });

  it("sizes each lane's requests by the connection's whole grant, and shares its requests in flight among the lanes", () => {
    // The demo's link, a Samba granting 16 credits: Windows 11's 1 MiB reads of large files go one at a time, however
    // many lanes wait. Before, each lane's 4 credits were split into 128 KiB requests, 2 in flight per lane, and the
    // line was the limit.
    const link = { bandwidthBitsPerSecond: 96.5e6, rttMs: 40.1 };
    const held = { ...SERVER_PROFILES.samba, smb2: { ...SERVER_PROFILES.samba.smb2, creditsMax: 16, creditsInitial: 16 } };
    const win11 = CLIENT_PROFILES['win11-24h2'];
    const big = parseWorkload('file:100MB');
    const lanes = { ...big, files: Array.from({ length: 4 }, (_, index) => ({ path: `f${index}.bin`, bytes: 25e6 })) };
    const oneRequestAtATime = (lanes.totalBytes / (1024 * 1024)) * (0.0401 + (1024 * 1024 * 8) / (96.5e6 * 0.94));
    expect(parallelSeconds(win11, held, 'read', lanes, link, 4)).toBeGreaterThanOrEqual(0.95 * oneRequestAtATime);
  });

  it('does not help a single file', () => {
    const link = { bandwidthBitsPerSecond: 100e6, rttMs: 75 };
    const file = parseWorkload('file:100MB');
    expect(parallelSeconds(client, server, 'read', file, link, 8)).toBe(predictTransfer(client, server, 'read', file, link).seconds);
  });

  it("shares one session's credits among the lanes: more threads never lift the credits' cap on the bytes in flight", () => {
    // A Samba granting 16 credits (16 x 64 KiB in flight at most) on a path whose BDP is five times that.
    const link = { bandwidthBitsPerSecond: 1e9, rttMs: 40 };
    const samba16 = { ...SERVER_PROFILES.samba, smb2: { ...SERVER_PROFILES.samba.smb2, creditsMax: 16 } };
    const win11 = CLIENT_PROFILES['win11-24h2'];
    const creditCap = (16 * 65536) / (link.rttMs / 1000);
    for (const lanes of [4, 16]) expect(dirset.totalBytes / parallelSeconds(win11, samba16, 'write', dirset, link, lanes)).toBeLessThanOrEqual(creditCap);
    // Lifting the credits lets the same four lanes go faster: they were what held them.
    expect(parallelSeconds(win11, SERVER_PROFILES.samba, 'write', dirset, link, 4)).toBeLessThan(
      parallelSeconds(win11, samba16, 'write', dirset, link, 4) * 0.75,
    );
  });
});
