// The path probe as the contract carries it.

import { z } from 'zod';
import { CIPHERS, SIGNING_ALGORITHMS } from '../model/smb-security.js';
import { MTU_RANGE } from '../model/link.js';
import { CONGESTION_NAME } from '../model/congestion.js';
import { LoginUsedSchema, ShareLoginSchema } from './share-login.js';

export const ProbeInputSchema = ShareLoginSchema.extend({
  /** An iperf3 server, `host[:port]`; without it, bandwidth comes from an SMB read pipeline. */
  iperf: z.string().optional(),
  seconds: z.number().positive().max(60).optional(),
}).strict();
/** As a front end sends it (the share as typed). */
export type ProbeInput = z.input<typeof ProbeInputSchema>;
/** As a service receives it: defaults applied, the share parsed (ShareRef). */
export type ProbeParsedInput = z.output<typeof ProbeInputSchema>;

const LatencySchema = z.object({ samples: z.number(), minMs: z.number(), medianMs: z.number(), p95Ms: z.number(), jitterMs: z.number() });

export const ProbeResultSchema = z.object({
  rtt: z.object({
    /** The round trip the model uses: the lowest of the handshakes', the ECHOs' and (fast paths) the back-to-back ECHOs' medians (src/probe/probe-path.ts, pathRttMs). */
    medianMs: z.number(),
    /** The TCP handshakes; timed by the kernel (TCP_INFO, Linux) or by this process (elsewhere, and in older reports). */
    tcp: LatencySchema.extend({
      timedBy: z.enum(['kernel', 'process']).optional(),
      /** Kernel-timed: the median as this process timed the same handshakes (used on a fast path). */
      processMedianMs: z.number().optional(),
    }),
    smbEcho: LatencySchema,
    /** On a fast path: ECHOs sent back to back, as a copy's requests go (absent on longer paths and in older reports). */
    smbEchoBackToBack: LatencySchema.optional(),
    /**
     * ECHOs on a connection of their own while the bandwidth test filled the link, its second half (src/probe/rtt.ts
     * echoesUnderLoad): a queue on the path that grows under load shows as the distance from the idle round trip.
     * Absent in older reports and where too few were answered.
     */
    loaded: LatencySchema.optional(),
  }),
  /** What the probe's SMB session negotiated: the ECHO round trips carry its signing or encryption. Absent in reports written before SMB 3 support. */
  session: z
    .object({
      dialect: z.string(),
      signing: z.enum(SIGNING_ALGORITHMS).nullable(),
      encryption: z.enum(CIPHERS).nullable(),
      /** What the server said of itself in its NTLM CHALLENGE (absent in older reports, or when it said nothing). */
      serverSays: z
        .object({
          ntlmVersion: z
            .object({
              major: z.number().int().min(0).max(255),
              minor: z.number().int().min(0).max(255),
              build: z.number().int().min(0).max(65535),
              revision: z.number().int().min(0).max(255),
            })
            .optional(),
          computerName: z.string().max(64).optional(),
        })
        .optional(),
      login: LoginUsedSchema.optional(),
    })
    .optional(),
  /**
   * The path's packets (issue 52): the path MTU the kernel held for the probe's connection once its transfers had
   * run (its own interface's, or lower where ICMP told it of a smaller hop: a tunnel). Linux only; absent elsewhere
   * and in older reports. A black hole ends the run before (src/probe/path-mtu.ts). Beside it, the congestion
   * control the kernel ran on that connection (a route may name its own, whatever the machine's default): the one
   * that sends Pipefill's writes.
   */
  path: z
    .object({
      mtuBytes: z.number().int().min(MTU_RANGE.least).max(MTU_RANGE.most).optional(),
      congestion: z.string().regex(CONGESTION_NAME).optional(),
    })
    .strict()
    .optional(),
  bandwidth: z.object({
    mbps: z.number(),
    method: z.enum(['iperf3', 'smb-read']),
    direction: z.enum(['download', 'upload']),
    seconds: z.number(),
    retransmits: z.number().optional(),
    lossPercent: z.number().optional(),
    congestion: z.string().optional(),
    /** Which iperf3 measured it: Pipefill's libiperf binding, or the executable where the binding did not load. */
    via: z.enum(['libiperf', 'iperf3-executable']).optional(),
    /** Why a faster method was not used (e.g. no iperf3 server answered). */
    fallbackReason: z.string().optional(),
    /** For iperf3: its mean after the omitted ramp, or the median of its second half's 0.1 s intervals (src/probe/bandwidth.ts steadyRate). */
    estimate: z.enum(['mean', 'steady']).optional(),
    /** TCP connections the test read on at once (the SMB read fallback on a network path: src/probe/bandwidth.ts SMB_READ_CONNECTIONS); absent: one. */
    streams: z.number().int().min(1).max(64).optional(),
    /**
     * The same iperf3 test again on several streams at once, run after the
     * copies where the run's writes found the path itself losing packets
     * (src/assess/line-under-loss.ts): one stream is held by the loss,
     * several together reach the line. Absent elsewhere and in older reports.
     */
    parallel: z
      .object({ streams: z.number().int().min(2).max(128), mbps: z.number().nonnegative().finite(), seconds: z.number().nonnegative().finite() })
      .strict()
      .optional(),
  }),
});
export type ProbeResult = z.infer<typeof ProbeResultSchema>;
