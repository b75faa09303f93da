import { describe, expect, it } from 'vitest';
import type { ProbeResult } from '../../contract/probe.js';
import { formatProbe } from './probe.js';

const latency = (medianMs: number) => ({ samples: 10, minMs: medianMs * 0.9, medianMs, p95Ms: medianMs * 1.1, jitterMs: 0.5 });
const result: ProbeResult = {
  rtt: { medianMs: 20, tcp: latency(20), smbEcho: latency(20.5) },
  bandwidth: { mbps: 50, method: 'smb-read', direction: 'download', seconds: 3 },
};

describe('pipefill probe', () => {
  it('prints the round trip under load and the queue it shows, where the probe measured it', () => {
    const text = formatProbe('//server/share', { ...result, rtt: { ...result.rtt, loaded: latency(300) } });
    expect(text).toMatch(
      /under load {2}300\.00 ms median SMB2 ECHO while the bandwidth test filled the link \(p95 330\.00; 280\.00 ms above the idle round trip\)/,
    );
  });

  it('prints no such line for a probe without it', () => {
    expect(formatProbe('//server/share', result)).not.toMatch(/under load|path MTU/);
  });

  it("prints the path MTU, and says what one below Ethernet's is", () => {
    expect(formatProbe('//server/share', { ...result, path: { mtuBytes: 1420 } })).toMatch(/path MTU {4}1420 bytes \(below Ethernet's 1500: a tunnel or PPPoE/);
    expect(formatProbe('//server/share', { ...result, path: { mtuBytes: 1500 } })).toMatch(/path MTU {4}1500 bytes\n/);
  });

  it('says the congestion control the kernel runs toward the share, where it read one, with or without an MTU', () => {
    expect(formatProbe('//server/share', { ...result, path: { congestion: 'cubic' } })).toMatch(
      /\n {2}sending {5}cubic, the congestion control this machine's TCP runs toward the share/,
    );
    expect(formatProbe('//server/share', { ...result, path: { congestion: 'cubic' } })).not.toMatch(/path MTU/);
    expect(formatProbe('//server/share', result)).not.toMatch(/sending/);
  });
});
