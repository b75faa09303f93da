// The verdict's shape: the answer a person reads first, for their own client.
// Apart from src/presentation/verdict.ts (which builds it from a report) so that the report's
// schema can hold it without importing the builder.

import { z } from 'zod';
import { CLIENT_PROFILE_IDS } from '../model/client-profiles.js';
import { LIMIT_LAYERS } from '../model/in-flight.js';
import { SERVER_PROFILE_IDS } from '../model/server-profiles.js';

/** A sentence a person reads: bounded, since a report may come from anywhere. */
const Sentence = z.string().max(2_000);

/** How the server profile behind the expectations was chosen. */
export const ServerSourceSchema = z.object({
  /** `given`: the person named it; `recognised`: from what the server sent; `assumed`: nothing told, a default. */
  kind: z.enum(['given', 'recognised', 'assumed']),
  /** What the server said of itself, for a person to check (`Samba (NTLM version 6.1, build 0)`). */
  evidence: Sentence.optional(),
});
export type ServerSource = z.infer<typeof ServerSourceSchema>;

/** One workload in one direction: the person's client measured, and what the path allows it. */
export const VerdictRateSchema = z.object({
  workload: z.enum(['file', 'small-files']),
  op: z.enum(['read', 'write']),
  /** The workload spec copied (`file:32MiB`, `tr3869-dirset:0.05`) and its bytes. */
  spec: z.string().max(100),
  bytes: z.number().nonnegative(),
  yoursSeconds: z.number().positive(),
  projected: z.boolean(),
  /**
   * The rate the copy held once under way (its opening and TCP's ramp left
   * out: src/model/steady-rate.ts), where it moved data long enough to show
   * one: the rate a person reads for a file. Absent in reports from before.
   */
  steadyBitsPerSecond: z.number().positive().optional(),
  /**
   * The time this path allows the same copy: the model's for the person's
   * client on the server as seen with every change Pipefill names made (in
   * reports from before it: Pipefill's best pipeline's copy). What the
   * copy's cost is counted against.
   */
  pathSeconds: z.number().positive().optional(),
  /** The rate the path allows on the copy a person knows (a 1 GB file, the 1 GB folder of small files): the model's, with every change made. */
  pathBitsPerSecond: z.number().positive().optional(),
  /** Pipefill's own deepest pipeline, measured on the same share in the same run, read as the person's copy is: shown for what it is. */
  bestPipelineBitsPerSecond: z.number().positive().optional(),
});
export type VerdictRate = z.infer<typeof VerdictRateSchema>;

export const VerdictFixSchema = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('change'),
    /** Where the change is made, the setting, its value now and proposed, and the command that makes it. */
    platform: z.string().max(40),
    knob: Sentence,
    current: z.string().max(200),
    value: z.string().max(200),
    command: Sentence,
    /** The copy a person knows it speeds up most (a 1 GB file, the 1 GB folder), before and after: the model's, with only this change made. */
    example: z.string().max(100),
    beforeSeconds: z.number().nonnegative(),
    afterSeconds: z.number().nonnegative(),
    sentence: Sentence,
  }),
  z.object({ kind: z.literal('none'), sentence: Sentence }),
]);
export type VerdictFix = z.infer<typeof VerdictFixSchema>;

/** Who makes a change: the person (their PC, their copy tool), the server's team, or the network's. */
export const TEAMS = ['pc', 'server', 'network'] as const;
export type Team = (typeof TEAMS)[number];

/** One change Pipefill names, with who makes it and what it buys for the copy it helps most (the fix's own effect for the fix). */
export const VerdictChangeSchema = z.object({
  ...VerdictFixSchema.options[0].shape,
  team: z.enum(TEAMS),
});
export type VerdictChange = z.infer<typeof VerdictChangeSchema>;

/** The person's copy that sent the most of its bytes again, where that is worth naming (src/contract/retransmissions.ts). */
export const VerdictRetransmissionsSchema = z.object({
  op: z.enum(['read', 'write']),
  workload: z.enum(['file', 'small-files']),
  /** Retransmitted bytes over bytes sent, as the kernel counted them for the copy. */
  fraction: z.number().min(0).max(1),
  /** `path`: lost on the way (the copy filled no queue); `own-queue`: the copy overflowed the line's queue itself. */
  source: z.enum(['path', 'own-queue']),
  /** Where the round trip at each loss was watched (a large-file write on Linux; src/model/loss-split.ts): the shares of the bytes sent that went again for each cause. */
  pathFraction: z.number().min(0).max(1).optional(),
  queueFraction: z.number().min(0).max(1).optional(),
  /** Seconds the copy took beyond the model's time (0 where it kept to it). */
  overSeconds: z.number().nonnegative(),
  sentence: Sentence,
});
export type VerdictRetransmissions = z.infer<typeof VerdictRetransmissionsSchema>;

/** Whether a client generation will open this share as it is set up (src/contract/readiness.ts), with the fix where it will not. */
export const VerdictReadinessSchema = z.object({
  profile: z.enum(CLIENT_PROFILE_IDS),
  /** `at-risk`: it opens only while something the client or its domain can turn off (NTLM) stays on. */
  status: z.enum(['ready', 'at-risk', 'refuses']),
  sentence: Sentence,
  fix: Sentence.optional(),
});
export type VerdictReadiness = z.infer<typeof VerdictReadinessSchema>;

export const VerdictSchema = z.object({
  client: z.enum(CLIENT_PROFILE_IDS),
  clientLabel: z.string().max(200),
  server: z.object({ profile: z.enum(SERVER_PROFILE_IDS), label: z.string().max(200), source: ServerSourceSchema }),
  rates: z.array(VerdictRateSchema).max(8),
  lineBitsPerSecond: z.number().nonnegative(),
  rttMs: z.number().nonnegative(),
  /** The layer that costs the client the most time, with its sentence; `none` when the client runs as fast as the path allows. */
  limit: z.object({
    layer: z.enum([...LIMIT_LAYERS, 'unexplained', 'none']),
    label: z.string().max(200),
    sentence: Sentence,
    op: z.enum(['read', 'write']).optional(),
    workload: z.enum(['file', 'small-files']).optional(),
    costSeconds: z.number().nonnegative(),
  }),
  fix: VerdictFixSchema,
  /** The next change, for the costliest copy another layer holds back (absent: none worth naming). */
  next: VerdictFixSchema.optional(),
  /**
   * Every change Pipefill names, the fix and the next first, each once: what
   * the ticket lists by who makes it. Absent in reports from before it.
   */
  changes: z.array(VerdictChangeSchema).max(40).optional(),
  /**
   * The client's copies a setting Pipefill names would speed up, each with
   * that setting (the one that helps it most): such a copy is held back,
   * whether or not it matched the model. Absent in reports from before it.
   */
  heldBack: z
    .array(z.object({ op: z.enum(['read', 'write']), workload: z.enum(['file', 'small-files']), knob: Sentence }))
    .max(8)
    .optional(),
  retransmissions: VerdictRetransmissionsSchema.optional(),
  /** Will the newest Windows generations open this share, newest first (absent in reports from before it). */
  readiness: z.array(VerdictReadinessSchema).max(4).optional(),
  /** The client's copies, the costliest first: seconds lost against the path's best, and why. */
  ranked: z
    .array(
      z.object({
        op: z.enum(['read', 'write']),
        workload: z.enum(['file', 'small-files']),
        costSeconds: z.number(),
        layer: z.enum([...LIMIT_LAYERS, 'unexplained']),
        sentence: Sentence,
      }),
    )
    .max(8),
  /** The answer in plain lines (yours, the path and its server, the limit, the fix, the next fix, the newest clients' readiness, what an earlier change bought): what the CLI prints first, the report's page 1 and the ticket summary. */
  lines: z.array(Sentence).min(1).max(7),
});
export type Verdict = z.infer<typeof VerdictSchema>;
