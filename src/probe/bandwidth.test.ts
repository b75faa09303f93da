import { describe, expect, it } from 'vitest';
import { PipefillError } from '../model/errors.js';
import { parseIperfJson } from './bandwidth.js';

describe('parseIperfJson', () => {
  it('reads the received rate, retransmits and congestion control', () => {
    const text = JSON.stringify({ end: { sum_received: { bits_per_second: 144.2e6, seconds: 5.0, bytes: 90e6 }, sum_sent: { retransmits: 62, bytes: 90.5e6 }, sender_tcp_congestion: 'bbr' } });
    const result = parseIperfJson(text, true);
    expect(result).toMatchObject({ mbps: 144.2, method: 'iperf3', direction: 'download', seconds: 5, retransmits: 62, congestion: 'bbr' });
    expect(result.lossPercent).toBeCloseTo((62 / (90.5e6 / 1448)) * 100, 6);
  });

  it("passes on iperf3's own error", () => {
    expect(() => parseIperfJson(JSON.stringify({ error: 'unable to connect to server: Connection refused' }), false)).toThrow(/Connection refused/);
    expect(() => parseIperfJson('not json', false)).toThrow(PipefillError);
  });
});
