import { describe, expect, it } from 'vitest';
import { parseSsConnections, parseSsTcpInfo, tcpEvidence } from './tcp-info.js';

// Real `ss -tinH state established '( sport = :P and dport = :445 )'` output
// (iproute2 6.1) for a write held back by the server's receive window.
const before = `0      0      10.77.0.1:40394 10.77.0.2:445
\t bbr wscale:7,7 rto:236 rtt:32.9/0.2 mss:1448 pmtu:1500 rcvmss:536 advmss:1448 cwnd:40 bytes_sent:4000 bytes_acked:4000 bytes_received:9000 segs_out:20 segs_in:20 busy:10ms rcv_space:14600 rcv_ssthresh:64076 minrtt:32.1 snd_wnd:65536`;
const after = `0      131072 10.77.0.1:40394 10.77.0.2:445
\t bbr wscale:7,7 rto:236 rtt:33.1/0.4 mss:1448 pmtu:1500 rcvmss:536 advmss:1448 cwnd:60 bytes_sent:8392608 bytes_retrans:4344 bytes_acked:8388608 bytes_received:19000 segs_out:6000 segs_in:3000 busy:4010ms rwnd_limited:3610ms(90.0%) sndbuf_limited:200ms(5.0%) rcv_space:14600 rcv_ssthresh:64076 minrtt:32.1 snd_wnd:65280`;

describe('tcp_info from ss', () => {
  it('reads the fields the diagnosis uses', () => {
    expect(parseSsTcpInfo(after)).toEqual({
      sndWndBytes: 65280,
      rcvSpaceBytes: 14600,
      busyMs: 4010,
      rwndLimitedMs: 3610,
      sndbufLimitedMs: 200,
      bytesSent: 8392608,
      bytesRetrans: 4344,
      bytesReceived: 19000,
      bytesAcked: 8388608,
      rttMs: 33.1,
      // The least round trip the connection has seen: where a queue stood, the smoothed one is above it (src/model/loss-split.ts).
      minRttMs: 32.1,
      // The path MTU the kernel holds and the MSS under it: 52 bytes of IP and TCP headers (timestamps on).
      mssBytes: 1448,
      pmtuBytes: 1500,
      congestion: 'bbr',
    });
    // Linux 5.4+: segments that arrived out of order (a read that lost packets on the way).
    expect(parseSsTcpInfo(`${after} rcv_ooopack:17`)?.rcvOooPackets).toBe(17);
  });

  it('finds nothing in empty output (the connection is gone, or ss printed nothing)', () => {
    expect(parseSsTcpInfo('')).toBeUndefined();
  });

  it('charges the copy only with what happened between the samples', () => {
    const evidence = tcpEvidence(parseSsTcpInfo(before), parseSsTcpInfo(after));
    expect(evidence?.peerWindowBytes).toBe(65280);
    expect(evidence?.peerWindowLimitedFraction).toBeCloseTo(3610 / 4000, 6);
    expect(evidence?.sendBufferLimitedFraction).toBeCloseTo(200 / 4000, 6);
    expect(evidence?.retransmittedFraction).toBeCloseTo(4344 / 8388608, 9);
    expect(evidence?.congestion).toBe('bbr');
  });

  it('has no fractions when the copy sent nothing (a read)', () => {
    const idle = parseSsTcpInfo(before);
    expect(tcpEvidence(idle, idle)).toEqual({ peerWindowBytes: 65536, receiveSpaceBytes: 14600, rttStartMs: 32.9, rttEndMs: 32.9, congestion: 'bbr' });
  });

  it('splits a listing of many connections by local port (the capacity run counts each person this way)', () => {
    const second = `0      0      [::1]:51000 [::1]:445
\t cubic wscale:7,7 rto:204 rtt:0.05/0.02 mss:32768 cwnd:10 bytes_acked:100 bytes_received:123456 rcv_space:65536`;
    const connections = parseSsConnections(`${before}\n${after.replace('40394', '40396')}\n${second}\n`);
    expect([...connections.keys()]).toEqual([40394, 40396, 51000]);
    expect(connections.get(40394)?.bytesAcked).toBe(4000);
    expect(connections.get(40396)?.bytesAcked).toBe(8388608);
    expect(connections.get(51000)?.bytesReceived).toBe(123456);
    expect(parseSsConnections('').size).toBe(0);
    // An address line without its tcp_info line is no connection.
    expect(parseSsConnections('0 0 10.0.0.1:1 10.0.0.2:445\n').size).toBe(0);
  });
});
