// A cold connection through random loss (issue 52): slow start runs ahead of
// the loss's steady rate (Mathis's) before its first losses, and a long copy
// settles on that rate.

import { describe, expect, it } from 'vitest';
import { CLIENT_PROFILES } from './client-profiles.js';
import { predict, predictTransfer } from './predict.js';
import { SERVER_PROFILES } from './server-profiles.js';
import { parseWorkload } from './workloads.js';
import { lossLimitedSeconds, lossRampSeconds, MATHIS_CONSTANT } from './loss-ramp.js';

const MIB = 2 ** 20;
const at1Percent = { lossRate: 0.01, rttMs: 40, segmentBytes: 1448, initialWindowSegments: 10, capSegments: 1e6, congestion: 'cubic' } as const;
const mathisBytesPerSecond = (1448 / 0.04) * (MATHIS_CONSTANT / Math.sqrt(0.01));

describe('a cold connection through random loss', () => {
  it('moves a megabyte at 1% and 40 ms about twice as fast as the steady rate gives (the lab: 2-5 times)', () => {
    const seconds = lossLimitedSeconds({ ...at1Percent, totalBytes: MIB });
    expect(MIB / mathisBytesPerSecond).toBeCloseTo(2.37, 2);
    expect(seconds).toBeGreaterThan(0.5);
    expect(seconds).toBeLessThan(1.3);
    expect(lossRampSeconds({ ...at1Percent, totalBytes: MIB }, mathisBytesPerSecond)).toBeLessThan(-1);
  });

  it("settles on Mathis's rate for a long copy, Reno and CUBIC alike", () => {
    for (const congestion of ['reno', 'cubic'] as const) {
      const [a, b] = [256, 1024].map((mib) => lossLimitedSeconds({ ...at1Percent, congestion, totalBytes: mib * MIB }));
      // The last 768 MiB at the steady rate, within 1%.
      expect(((b ?? 0) - (a ?? 0)) / ((768 * MIB) / mathisBytesPerSecond)).toBeCloseTo(1, 2);
    }
  });

  it('goes no faster than the other layers let it keep in flight', () => {
    const capped = lossLimitedSeconds({ ...at1Percent, capSegments: 5, lossRate: 1e-6, totalBytes: 64 * MIB });
    expect(capped).toBeCloseTo(((64 * MIB) / (5 * 1448 * (1 - 1e-6))) * 0.04, 1);
  });

  it('takes nothing for nothing, and no loss', () => {
    expect(lossLimitedSeconds({ ...at1Percent, totalBytes: 0 })).toBe(0);
    expect(lossLimitedSeconds({ ...at1Percent, lossRate: 0, totalBytes: MIB })).toBe(0);
  });

  it("gives the person's short write through a lossy hop its head start in the model, and a long one Mathis's rate", () => {
    const link = { bandwidthBitsPerSecond: 50e6, rttMs: 40, lossRate: 0.01 };
    const short = predict({ client: 'win11-24h2', server: 'samba', op: 'write', workload: 'file:1MiB', link });
    expect(short.limitedBy).toBe('packet-loss');
    expect(short.breakdown.slowStartSeconds).toBeLessThan(0);
    // Its data, beside the 18 round trips Windows 11's open and close take: about a second, not Mathis's 2.4 s.
    expect(short.breakdown.dataSeconds + short.breakdown.slowStartSeconds).toBeLessThan(1.3);
    const long = predict({ client: 'win11-24h2', server: 'samba', op: 'write', workload: 'file:1GB', link });
    expect((1e9 * 8) / long.seconds / 1e6).toBeCloseTo((mathisBytesPerSecond * 8) / 1e6, 0);
  });

  it("is shared by robocopy's lanes on the one connection, as its windows are", () => {
    const link = { bandwidthBitsPerSecond: 50e6, rttMs: 40, lossRate: 0.01 };
    const win11 = CLIENT_PROFILES['win11-24h2'];
    const lossOf = (connectionShare?: number) =>
      predictTransfer(win11, SERVER_PROFILES.samba, 'write', parseWorkload('file:1GB'), link, {
        protection: { kind: 'none' },
        channels: 1,
        ...(connectionShare === undefined ? {} : { connectionShare }),
      }).layers.find((layer) => layer.layer === 'packet-loss')?.bytesPerSecond ?? NaN;
    expect(lossOf(1 / 8)).toBeCloseTo(lossOf() / 8, 6);
    // A lane moving an eighth of a connection's 8 MiB takes as long as the connection takes for all of it.
    const dataOf = (bytes: string, connectionShare?: number) => {
      const { breakdown } = predictTransfer(win11, SERVER_PROFILES.samba, 'write', parseWorkload(`file:${bytes}`), link, {
        protection: { kind: 'none' },
        channels: 1,
        ...(connectionShare === undefined ? {} : { connectionShare }),
      });
      return breakdown.dataSeconds + breakdown.slowStartSeconds;
    };
    expect(dataOf('1MiB', 1 / 8) / dataOf('8MiB')).toBeCloseTo(1, 1);
  });

  it('is no layer for a BBR sender, which paces at the rate it measures whatever random loss takes', () => {
    const link = { bandwidthBitsPerSecond: 50e6, rttMs: 40, lossRate: 0.01 };
    const cifs = CLIENT_PROFILES['linux-cifs'];
    const layersOf = (congestion: 'cubic' | 'bbr') =>
      predictTransfer({ ...cifs, tcp: { ...cifs.tcp, congestion } }, SERVER_PROFILES.samba, 'write', parseWorkload('file:1GB'), link).layers.map(
        (layer) => layer.layer,
      );
    expect(layersOf('cubic')).toContain('packet-loss');
    expect(layersOf('bbr')).not.toContain('packet-loss');
  });
});
