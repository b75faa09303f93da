// Recommendations as the contract carries them: a path (a report, or a
// bandwidth and RTT), a client and a server in; settings with the model's
// time before and after out.

import { z } from 'zod';
import type { RecommendInput } from '../advice/recommend.js';
import { recommend } from '../advice/recommend.js';
import type { Observations } from '../model/diagnosis.js';
import { CLIENT_PROFILE_IDS } from '../model/client-profiles.js';
import { PipefillInputError } from '../model/errors.js';
import { SERVER_PROFILE_IDS } from '../model/server-profiles.js';
import { parseLossRate, parseRate, parseTimeMs } from '../model/units.js';
import type { Report } from './report.js';
import { ReportSchema } from './report.js';

const KnobValueSchema = z.union([z.number(), z.string(), z.boolean()]);

export const RecommendApiInputSchema = z
  .object({
    report: ReportSchema.optional(),
    bandwidth: z.string().optional(),
    rtt: z.string().optional(),
    loss: z.string().optional(),
    client: z.enum(CLIENT_PROFILE_IDS),
    server: z.enum(SERVER_PROFILE_IDS),
    /** A Samba smb.conf to read the current values from (through testparm). */
    smbConf: z.string().optional(),
    /** Current values by knob id, where the caller knows them. */
    current: z.record(z.string(), KnobValueSchema).optional(),
  })
  .strict();
export type RecommendApiInput = z.infer<typeof RecommendApiInputSchema>;

export const RecommendationSchema = z.object({
  id: z.string(),
  knob: z.string(),
  platform: z.enum(['windows-client', 'windows-server', 'samba', 'ontap', 'linux', 'macos', 'copy-tool']),
  value: KnobValueSchema,
  current: KnobValueSchema,
  default: KnobValueSchema,
  range: z.tuple([z.number(), z.number()]).optional(),
  command: z.string(),
  test: z.string(),
  expectedSeconds: z.object({ before: z.number(), after: z.number() }),
  tests: z.array(z.object({ test: z.string(), before: z.number(), after: z.number() })),
  why: z.string(),
  caution: z.string().optional(),
  source: z.string(),
});
export type RecommendationOut = z.infer<typeof RecommendationSchema>;

export const RecommendResultSchema = z.object({
  link: z.object({ bandwidthBitsPerSecond: z.number(), rttMs: z.number(), lossRate: z.number() }),
  client: z.enum(CLIENT_PROFILE_IDS),
  server: z.enum(SERVER_PROFILE_IDS),
  recommendations: z.array(RecommendationSchema),
  combined: z.array(z.object({ test: z.string(), before: z.number(), after: z.number() })),
});
export type RecommendResult = z.infer<typeof RecommendResultSchema>;

/**
 * What a report's copies revealed: the most credits any copy was allowed (a
 * copy that asked for few shows nothing of the server's ceiling, so the
 * deepest one speaks for the server), and the server's window where writes
 * waited on it.
 */
export function observationsFromReport(report: Report): Observations {
  const credits = report.copyTests.map((test) => test.negotiated.creditsGrantedMax).filter((n) => n > 0);
  const held = report.copyTests.filter((test) => test.op === 'write' && test.tcp?.peerWindowBytes !== undefined).sort((a, b) => (b.tcp?.peerWindowLimitedFraction ?? 0) - (a.tcp?.peerWindowLimitedFraction ?? 0))[0];
  return {
    ...(credits.length > 0 ? { creditsGranted: Math.max(...credits) } : {}),
    ...(held?.tcp?.peerWindowBytes !== undefined ? { peerWindowBytes: held.tcp.peerWindowBytes, peerWindowLimitedFraction: held.tcp.peerWindowLimitedFraction ?? 0 } : {}),
  };
}

/** The recommendation for a parsed input; `current` already holds what the service read (smb.conf, sysctls). */
export function recommendFromInput(input: RecommendApiInput): RecommendResult {
  let link;
  if (input.report) {
    link = { bandwidthBitsPerSecond: input.report.probes.bandwidth.mbps * 1e6, rttMs: input.report.probes.rtt.medianMs, lossRate: 0 };
  } else if (input.bandwidth !== undefined && input.rtt !== undefined) {
    link = { bandwidthBitsPerSecond: parseRate(input.bandwidth), rttMs: parseTimeMs(input.rtt), lossRate: input.loss === undefined ? 0 : parseLossRate(input.loss) };
  } else {
    throw new PipefillInputError('A recommendation needs a path: an assessment report, or a bandwidth and an RTT.', 'Give --report report.json, or --bandwidth 155mbit --rtt 75ms.');
  }
  const request: RecommendInput = {
    link,
    client: input.client,
    server: input.server,
    ...(input.current ? { current: input.current } : {}),
    ...(input.report ? { observations: observationsFromReport(input.report) } : {}),
  };
  const result = recommend(request);
  return { link: { ...link, lossRate: link.lossRate ?? 0 }, client: input.client, server: input.server, recommendations: result.recommendations.map(({ range, tests, ...rest }) => ({ ...rest, tests: [...tests], ...(range ? { range: [range[0], range[1]] as [number, number] } : {}) })), combined: [...result.combined] };
}
