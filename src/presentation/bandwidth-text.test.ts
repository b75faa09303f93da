import { describe, expect, it } from 'vitest';
import { bandwidthText } from './bandwidth-text.js';

describe("the probe's bandwidth, as every view says it", () => {
  const iperf = { mbps: 3.13, method: 'iperf3', direction: 'download', seconds: 2, via: 'libiperf', lossPercent: 0.884 } as const;

  it('says the data it moved, which way, how, and what TCP sent again', () => {
    expect(bandwidthText(iperf)).toBe('3.13 Mb/s of data download by iperf3 (libiperf), about 0.88% retransmitted');
  });

  it('adds the test on several streams where the copies found the path losing packets', () => {
    expect(bandwidthText({ ...iperf, parallel: { streams: 16, mbps: 46.9, seconds: 2 } })).toBe(
      '3.13 Mb/s of data download by iperf3 (libiperf), about 0.88% retransmitted; 46.9 Mb/s on 16 streams at once, run again where the copies found the path losing packets',
    );
  });

  it('says why the SMB read test ran instead of iperf3', () => {
    expect(bandwidthText({ mbps: 91.2, method: 'smb-read', direction: 'download', seconds: 5, fallbackReason: 'no iperf3 server was given' })).toBe(
      '91.2 Mb/s of data download by smb-read: no iperf3 server was given',
    );
  });
});
