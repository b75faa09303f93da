// The path MTU probe's logic against sessions that stand in for a path
// (issue 52): packets above a size vanish (a timeout), a server refuses or
// shortens a probe, a person cancels.

import { describe, expect, it } from 'vitest';
import type { ScratchFolder } from '../copy/scratch.js';
import type { SmbSession } from '../smb/session.js';
import { SmbError } from '../smb/errors.js';
import { probePathMtu, stopAtBlackHole } from './path-mtu.js';
import { READ_FRAME_OVERHEAD_BYTES, WRITE_FRAME_OVERHEAD_BYTES } from '../model/path-mtu.js';

/** Headers assumed where `ss` says nothing (a fake connection has no port): 52 bytes, as Linux with timestamps. */
const HEADERS = 52;

interface FakePath {
  /** The largest packet that crosses. */
  readonly mtu: number;
  /** What a probe's READ brings back, where the server shortens it. */
  readonly shortRead?: boolean;
  /** A failure every write meets. */
  readonly writeFails?: SmbError;
}

function fakeSessions(path: FakePath) {
  const made: { reset: boolean; ended: boolean }[] = [];
  const make = (): SmbSession => {
    const state = { reset: false, ended: false };
    made.push(state);
    const vanishes = (payloadBytes: number) => payloadBytes + HEADERS > path.mtu;
    return {
      negotiated: { encryption: null },
      connection: { endpoints: { localPort: 0, remotePort: 445 }, destroy: (reset?: boolean) => (state.reset = reset === true) },
      create: () => Promise.resolve({ fileId: Buffer.alloc(16) }),
      write: (_id: Buffer, _offset: number, data: Buffer) => {
        if (path.writeFails) return Promise.reject(path.writeFails);
        if (vanishes(data.length + WRITE_FRAME_OVERHEAD_BYTES)) return Promise.reject(new SmbError('timeout', 'no reply', ''));
        return Promise.resolve(data.length);
      },
      read: (_id: Buffer, _offset: number, length: number) => {
        if (vanishes(length + READ_FRAME_OVERHEAD_BYTES)) return Promise.reject(new SmbError('timeout', 'no reply', ''));
        return Promise.resolve(Buffer.alloc(path.shortRead ? length - 1 : length));
      },
      close: () => Promise.resolve(),
      end: () => {
        state.ended = true;
        return Promise.resolve();
      },
    } as unknown as SmbSession;
  };
  return { made, first: make(), open: () => Promise.resolve(make()) };
}

const scratch = { path: (name: string) => `scratch\\${name}` } as unknown as ScratchFolder;

describe('the path MTU probe', () => {
  it('finds a 1400-byte hop within 8 bytes, resetting each connection a lost probe spent and ending every session', async () => {
    const sessions = fakeSessions({ mtu: 1400 });
    const probe = await probePathMtu(sessions.first, scratch, sessions.open, { rttMs: 40 });
    expect('search' in probe && probe.search.crossesBytes).toBeGreaterThan(1392);
    expect('search' in probe && probe.search.crossesBytes).toBeLessThanOrEqual(1400);
    const lost = 'search' in probe ? probe.search.probes.filter((tried) => !tried.crossed).length : 0;
    expect(sessions.made.filter((session) => session.reset)).toHaveLength(lost);
    expect(sessions.made.every((session) => session.ended || session.reset)).toBe(true);
    expect(() => stopAtBlackHole(probe)).toThrow(/Path MTU black hole: packets larger than 1(39[3-9]|400) bytes vanish/);
  });

  it('takes one probe where the full size crosses, and names nothing', async () => {
    const sessions = fakeSessions({ mtu: 1500 });
    const probe = await probePathMtu(sessions.first, scratch, sessions.open, { rttMs: 40 });
    expect('search' in probe && probe.search.probes).toEqual([{ packetBytes: 1500, crossed: true }]);
    expect(() => stopAtBlackHole(probe)).not.toThrow();
  });

  it('says nothing of the path where not even 1280 bytes cross, where the server shortens a read, or refuses a write', async () => {
    for (const path of [{ mtu: 1000 }, { mtu: 1500, shortRead: true }, { mtu: 1500, writeFails: new SmbError('access-denied', 'no', '') }]) {
      const sessions = fakeSessions(path);
      const probe = await probePathMtu(sessions.first, scratch, sessions.open, { rttMs: 40 });
      expect(probe).toHaveProperty('unknown');
      expect(() => stopAtBlackHole(probe)).not.toThrow();
    }
  });

  it('passes a cancel on: the run stops, not the probe', async () => {
    const sessions = fakeSessions({ mtu: 1500, writeFails: new SmbError('cancelled', 'Cancelled.', '') });
    await expect(probePathMtu(sessions.first, scratch, sessions.open, { rttMs: 40 })).rejects.toMatchObject({ kind: 'cancelled' });
  });
});
