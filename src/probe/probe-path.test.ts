import { describe, expect, it } from 'vitest';
import { pathRttMs, smbReadSeconds, wantsBackToBack } from './probe-path.js';

const stats = (medianMs: number) => ({ samples: 10, minMs: medianMs / 2, medianMs, p95Ms: medianMs * 2, jitterMs: 0.1 });

describe('pathRttMs: the round trip the model uses', () => {
  it('is the lowest median: handshakes, spaced ECHOs and, on a fast path, ECHOs back to back', () => {
    expect(pathRttMs(stats(1.7), stats(1.36))).toBe(1.36);
    // The lab at 1 Gb/s / 0.5 ms: spaced ECHOs pay every hop's wake-up; back to back they read what a copy's requests see.
    expect(pathRttMs(stats(1.7), stats(1.36), stats(0.87))).toBe(0.87);
    expect(pathRttMs(stats(32.4), stats(32.9))).toBe(32.4);
  });

  it("is the kernel-timed handshakes' median on a path that is not a fast one, however late the process's clock ran", () => {
    // Beside a busy core (issue 48): the process timed ECHOs at 82.5 ms on a 60 ms link; the kernel's handshakes read the link.
    expect(pathRttMs({ ...stats(60.1), timedBy: 'kernel' }, stats(82.5))).toBe(60.1);
    expect(pathRttMs({ ...stats(60.1), timedBy: 'kernel' }, stats(59.9))).toBe(60.1);
    // Timed by the process (not Linux, no addon, an older report): the lowest median, as before.
    expect(pathRttMs({ ...stats(61), timedBy: 'process' }, stats(60.5))).toBe(60.5);
  });

  it("leaves the kernel's handshakes out on a fast path: there the ECHOs' server turnaround is most of a request's trip", () => {
    // Loopback: a kernel handshake of 30 microseconds, ECHOs of 0.38 ms.
    expect(pathRttMs({ ...stats(0.03), timedBy: 'kernel', processMedianMs: 1.7 }, stats(0.38))).toBe(0.38);
    expect(pathRttMs({ ...stats(0.5), timedBy: 'kernel', processMedianMs: 1.7 }, stats(1.36), stats(0.87))).toBe(0.87);
    // A busy machine's ECHOs late, its handshakes less so: the lowest, as before the kernel was asked.
    expect(pathRttMs({ ...stats(0.04), timedBy: 'kernel', processMedianMs: 2.5 }, stats(40))).toBe(2.5);
  });
});

describe('wantsBackToBack: whether the spaced ECHOs show a fast path', () => {
  it('goes by their least, which a busy machine does not raise', () => {
    // Loopback beside two busy loops (2026-11-27): spaced ECHOs of 0.11-0.21 ms at least, their median up to 1.55 ms.
    expect(wantsBackToBack({ samples: 10, minMs: 0.122, medianMs: 2.4, p95Ms: 9, jitterMs: 1.5 })).toBe(true);
    expect(wantsBackToBack(stats(1.36))).toBe(true);
    // A WAN path: its least ECHO is the path's round trip.
    expect(wantsBackToBack({ samples: 10, minMs: 32.1, medianMs: 32.9, p95Ms: 34, jitterMs: 0.3 })).toBe(false);
    expect(wantsBackToBack({ samples: 10, minMs: 2, medianMs: 2.2, p95Ms: 3, jitterMs: 0.1 })).toBe(false);
  });
});

describe('smbReadSeconds: how long the SMB read test reads', () => {
  it('reads a fast path for the shorter of the time asked and its own, and a long one for a steady test at least', () => {
    // Loopback and a LAN: an assessment's 3 s come down to 1; a probe asked for half a second keeps it.
    expect(smbReadSeconds(0.4, { seconds: 3, fastPathSeconds: 1 })).toBe(1);
    expect(smbReadSeconds(1.9, { seconds: 0.5, fastPathSeconds: 1 })).toBe(0.5);
    expect(smbReadSeconds(0.4, { fastPathSeconds: 1 })).toBe(1);
    // `pipefill probe --seconds 3` names no fast-path length: it reads the 3 s asked.
    expect(smbReadSeconds(0.4, { seconds: 3 })).toBe(3);
    // A long path is not shortened: 24 round trips of 150 ms are 4 s.
    expect(smbReadSeconds(150, { seconds: 3, fastPathSeconds: 1 })).toBe(4);
    expect(smbReadSeconds(40, { seconds: 3, fastPathSeconds: 1 })).toBe(3);
    expect(smbReadSeconds(40, { fastPathSeconds: 1 })).toBeUndefined();
  });
});
