import { describe, expect, it } from 'vitest';
import { CLIENT_PROFILES } from './client-profiles.js';
import { predictTransfer } from './predict.js';
import { SERVER_PROFILES } from './server-profiles.js';
import { parseWorkload } from './workloads.js';

describe("the packet-loss layer's sentence", () => {
  const lossy = { bandwidthBitsPerSecond: 50e6, rttMs: 40, lossRate: 0.01 };
  const file = parseWorkload('file:1GB');

  it('names the sender that backs off at each loss: the client for a write, the server for a read', () => {
    const write = predictTransfer(CLIENT_PROFILES['win11-24h2'], SERVER_PROFILES.samba, 'write', file, lossy);
    expect(write.limitedBy).toBe('packet-loss');
    expect(write.explanation).toMatch(/^Packet loss of 1% holds one cubic TCP stream, which backs off at each loss, to about .* at 40 ms \(Mathis bound\)/);
    const reno = { ...SERVER_PROFILES.samba, tcp: { ...SERVER_PROFILES.samba.tcp, congestion: 'reno' as const } };
    expect(predictTransfer(CLIENT_PROFILES['win11-24h2'], reno, 'read', file, lossy).explanation).toMatch(/holds one reno TCP stream/);
  });

  it('is not said of a sender that keeps its rate through loss (BBR): the loss is then no layer', () => {
    const bbr = { ...SERVER_PROFILES.samba, tcp: { ...SERVER_PROFILES.samba.tcp, congestion: 'bbr' as const } };
    const read = predictTransfer(CLIENT_PROFILES['win11-24h2'], bbr, 'read', file, lossy);
    expect(read.limitedBy).not.toBe('packet-loss');
    expect(read.explanation).not.toMatch(/Mathis/);
  });
});

describe("the bandwidth layer's sentence for a folder of small files", () => {
  const line = { bandwidthBitsPerSecond: 50e6, rttMs: 40 };
  const deepest = CLIENT_PROFILES['pipefill-max'];

  it("adds the files' metadata round trips, the part several files at once overlap, where they are a real part of the time", () => {
    const read = predictTransfer(deepest, SERVER_PROFILES.samba, 'read', parseWorkload('tr3869-dirset:1'), line);
    expect(read.limitedBy).toBe('bandwidth');
    expect(read.explanation).toMatch(
      /^Every layer keeps the path's .* BDP in flight, and its \d+ files' \d+ metadata round trips at 40 ms add .*, one file after another, which copying several files at once overlaps: the link itself is the limit, .*\.$/,
    );
  });

  it('says nothing of them for one large file', () => {
    const read = predictTransfer(deepest, SERVER_PROFILES.samba, 'read', parseWorkload('file:1GB'), line);
    expect(read.limitedBy).toBe('bandwidth');
    expect(read.explanation).not.toMatch(/metadata round trips/);
  });
});
