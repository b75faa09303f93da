// The data mover's self-sizing on a simulated path (virtual time): no server,
// no clock of this machine, so the depths it reaches are the rule's, not the
// machine's.

import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { PatternSource } from './pattern.js';
import { CreditStarvationError } from '../smb/credits.js';
import { SmbError } from '../smb/errors.js';
import type { SmbSession } from '../smb/session.js';
import { TimelineRecorder } from './timeline.js';
import type { FileTransfer } from './transfer.js';
import { transferFileWithDepth } from './transfer.js';

const MIB = 2 ** 20;

/**
 * A session whose writes cross a path of `rttMs` and `bytesPerMs`: each
 * request is serialised behind the ones before it and answered a round trip
 * later. Its quickest exchange so far is the path's round trip plus `serverMs`.
 */
function simulatedSession(rttMs: number, bytesPerMs: number, serverMs = 0.05) {
  let linkFreeAt = 0;
  let inFlight = 0;
  let mostInFlight = 0;
  const session = {
    creditCharge: (bytes: number) => Math.ceil(bytes / 65_536),
    connection: { creditTarget: 64, credits: { credits: 8192, creditsInFlight: 0 }, fastestExchangeMs: rttMs + serverMs },
    write: async (_fileId: Buffer, _offset: number, data: readonly Buffer[]) => {
      const bytes = data.reduce((sum, piece) => sum + piece.length, 0);
      const now = performance.now();
      linkFreeAt = Math.max(now, linkFreeAt) + bytes / bytesPerMs;
      mostInFlight = Math.max(mostInFlight, (inFlight += 1));
      await new Promise((resolve) => setTimeout(resolve, linkFreeAt + rttMs + serverMs - now));
      inFlight -= 1;
      return bytes;
    },
  };
  return { session: session as unknown as SmbSession, mostInFlight: () => mostInFlight };
}

function writeOf(session: SmbSession, fileBytes: number, growth: FileTransfer['growth']): FileTransfer {
  return {
    session,
    fileId: Buffer.alloc(16),
    op: 'write',
    fileBytes,
    pipeline: { depth: 4, chunkBytes: 2 * MIB, requestBytes: 2 * MIB },
    pattern: new PatternSource('seed', 'file'),
    verify: false,
    recorder: new TimelineRecorder(),
    label: 'file',
    ...(growth ? { growth } : {}),
  };
}

describe('transferFile on a simulated path', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'performance'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  async function run(transfer: FileTransfer) {
    const done = transferFileWithDepth(transfer);
    await vi.runAllTimersAsync();
    return done;
  }

  it('a short path keeps the least depth: nothing fills the budget on a guess', async () => {
    const path = simulatedSession(0.05, 1_500_000); // loopback-like: 1.5 GB/s, 50 us
    const outcome = await run(writeOf(path.session, 64 * MIB, { maxDepth: 16, bdpMultiple: 2 }));
    expect(outcome).toEqual({ bytes: 64 * MIB, depth: 4 });
    expect(path.mostInFlight()).toBe(4);
  });

  it('a long fat path deepens the pipeline until the path, not the pipeline, sets the pace', async () => {
    // 1 Gb/s x 100 ms: BDP 12.5 MB, 6 chunks of 2 MiB; the rule aims at twice that.
    const path = simulatedSession(100, 125_000);
    const started = performance.now();
    const outcome = await run(writeOf(path.session, 256 * MIB, { maxDepth: 16, bdpMultiple: 2 }));
    const seconds = (performance.now() - started) / 1000;
    expect(outcome.bytes).toBe(256 * MIB);
    expect(outcome.depth).toBeGreaterThanOrEqual(8);
    expect(outcome.depth).toBeLessThanOrEqual(16);
    // Within 20% of the line (the start at depth 4 costs a few round trips).
    expect((256 * MIB) / 125_000_000 / seconds).toBeGreaterThan(0.8);
  });

  it('without growth the depth is what it was given, however long the path', async () => {
    const path = simulatedSession(100, 125_000);
    const outcome = await run(writeOf(path.session, 64 * MIB, undefined));
    expect(outcome.depth).toBe(4);
    expect(path.mostInFlight()).toBe(4);
  });

  it('never deeper than its budget', async () => {
    const path = simulatedSession(250, 125_000);
    const outcome = await run(writeOf(path.session, 256 * MIB, { maxDepth: 6, bdpMultiple: 2 }));
    expect(outcome.depth).toBe(6);
    expect(path.mostInFlight()).toBe(6);
  });
});

describe('writes leave in file order (issue 37, item 9)', () => {
  it('whatever order the local reads finish in', async () => {
    const issued: number[] = [];
    const session = {
      creditCharge: (bytes: number) => Math.ceil(bytes / 65_536),
      connection: { creditTarget: 64, credits: { credits: 8192, creditsInFlight: 0 }, fastestExchangeMs: 1, sendsRanges: false },
      write: async (_fileId: Buffer, offset: number, data: readonly Buffer[]) => {
        issued.push(offset);
        await new Promise((resolve) => setTimeout(resolve, 1));
        return data.reduce((sum, piece) => sum + piece.length, 0);
      },
    } as unknown as SmbSession;
    const requestBytes = 64 * 1024;
    // A local source whose reads finish last-first within each chunk, as a thread pool may finish them.
    const source = {
      read: async (offset: number, length: number) => {
        await new Promise((resolve) => setTimeout(resolve, 20 - ((offset / requestBytes) % 16)));
        return [Buffer.alloc(length)];
      },
      release: () => undefined,
    };
    const transfer: FileTransfer = {
      ...writeOf(session, 4 * MIB, undefined),
      pipeline: { depth: 4, chunkBytes: 16 * requestBytes, requestBytes },
      source: source as unknown as NonNullable<FileTransfer['source']>,
    };
    expect((await transferFileWithDepth(transfer)).bytes).toBe(4 * MIB);
    expect(issued).toHaveLength(64);
    expect(issued).toEqual([...issued].sort((a, b) => a - b));
  });
});

describe('transferFile against a server whose grant settles below a request', () => {
  it.each([
    ['all of the grant left', { credits: 16, creditsInFlight: 0 }],
    // Every request of the pipeline starved at once: by the time this one looks, another one's retry holds the 16.
    ["another request's retry holding it", { credits: 0, creditsInFlight: 16 }],
  ])('reads the range again in requests the grant allows, where one starved of credits with nothing in flight (%s)', async (_case, credits) => {
    // smbd with `smb2 max credits = 16`: a read cut to 20 credits (so 40 or more held after the first ECHOs, inferred),
    // then a grant of 16 with nothing in flight: the 20-credit read could never go.
    const pattern = new PatternSource('seed', 'file');
    const reads: number[] = [];
    const session = {
      creditCharge: (bytes: number) => Math.ceil(bytes / 65_536),
      connection: { creditTarget: 64, credits, fastestExchangeMs: 1, recycle: () => undefined },
      // The burst the first ECHOs saw: enough for the 20-credit request, which then finds 16.
      reserveCredits: () => Promise.resolve(40),
      read: (_fileId: Buffer, offset: number, length: number) => {
        if (Math.ceil(length / 65_536) > 16) {
          const starved = new CreditStarvationError(`The server granted too few credits (16) for a request of ${Math.ceil(length / 65_536)}.`);
          return Promise.reject(new SmbError('protocol', starved.message, 'check smb2 max credits', undefined, { cause: starved }));
        }
        reads.push(length);
        const data = Buffer.alloc(length);
        pattern.fill(data, offset);
        return Promise.resolve(data);
      },
    } as unknown as SmbSession;
    const recorder = new TimelineRecorder();
    const outcome = await transferFileWithDepth({
      session,
      fileId: Buffer.alloc(16),
      op: 'read',
      fileBytes: 4 * 20 * 65_536,
      pipeline: { depth: 2, chunkBytes: 20 * 65_536, requestBytes: 20 * 65_536 },
      pattern,
      verify: true,
      recorder,
      label: 'file',
    });
    expect(outcome.bytes).toBe(4 * 20 * 65_536);
    expect(recorder.bytes).toBe(4 * 20 * 65_536);
    expect(Math.max(...reads)).toBeLessThanOrEqual(16 * 65_536);
  });
});
