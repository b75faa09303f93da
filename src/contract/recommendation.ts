// A recommendation as the contract carries it: a setting, its value now and
// proposed, the command that sets it, and the model's time before and after.
// Apart from recommend.ts so that a report can carry its recommendations
// (report.ts imports this file; recommend.ts imports report.ts).

import { z } from 'zod';
import { CLIENT_PROFILE_IDS } from '../model/client-profiles.js';
import { SERVER_PROFILE_IDS } from '../model/server-profiles.js';

export const KnobValueSchema = z.union([z.number(), z.string(), z.boolean()]);

export const RecommendationSchema = z.object({
  id: z.string(),
  knob: z.string(),
  platform: z.enum(['windows-client', 'windows-server', 'samba', 'ontap', 'linux', 'macos', 'copy-tool']),
  value: KnobValueSchema,
  current: KnobValueSchema,
  /** Where `current` comes from when it was not read: the copies showed it (the most credits the server granted). */
  currentFrom: z.literal('observed').optional(),
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
  /** Protection not at its strongest, with its cost: for a person to decide, applied only when asked (apply --include-protection). */
  protections: z.array(RecommendationSchema),
  combined: z.array(z.object({ test: z.string(), before: z.number(), after: z.number() })),
});
export type RecommendResult = z.infer<typeof RecommendResultSchema>;

/**
 * A recommendation's value now, as a person reads it: "28 granted" where the copies showed a number (the credits
 * the server let them use), "AES-128-CMAC, as the copies saw it" where they showed a setting (the signing algorithm
 * the server chose, the receive buffer its window gave away), else the value.
 */
export function currentText(recommendation: Pick<RecommendationOut, 'current' | 'currentFrom'>): string {
  if (recommendation.currentFrom !== 'observed') return String(recommendation.current);
  return typeof recommendation.current === 'number' ? `${recommendation.current} granted` : `${String(recommendation.current)}, as the copies saw it`;
}
