// A branch-capacity run as the contract carries it (issue 16): how many
// simulated people, copying what, for how long; out, per step, what they
// moved together and each, how fairly, what a person waited meanwhile, and
// the model's figures beside them.

import { z } from 'zod';
import { CAPACITY_OPS, MAX_CAPACITY_USERS, MAX_MODELLED_USERS } from '../model/capacity.js';
import { CLIENT_PROFILE_IDS } from '../model/client-profiles.js';
import { PipefillInputError } from '../model/errors.js';
import { SERVER_PROFILE_IDS } from '../model/server-profiles.js';
import { CIPHERS, SIGNING_ALGORITHMS } from '../model/smb-security.js';
import { checkReportSize } from './report.js';
import { ShareLoginSchema } from './share-login.js';
import { parseInput } from './validate.js';

/** Steps one run may take; 1,2,4,8,16,32 is six. */
export const MAX_CAPACITY_STEPS = 12;

export const CapacityTargetSchema = z
  .object({
    users: z.number().int().min(1).max(MAX_MODELLED_USERS),
    /** Each person's rate the branch needs, Mb/s. */
    perUserMbps: z.number().positive().max(1e6),
    /** The most that load may add to a round trip, ms. */
    addedLatencyMs: z.number().nonnegative().max(60_000),
  })
  .strict();
export type CapacityTarget = z.infer<typeof CapacityTargetSchema>;

export const CapacityInputSchema = ShareLoginSchema.extend({
  profile: z.enum(CLIENT_PROFILE_IDS).default('win10-smb3'),
  /** The server profile the model starts from (its credits and TCP windows), corrected by what the run's copies saw (capacity-result.ts). */
  server: z.enum(SERVER_PROFILE_IDS).default('samba'),
  op: z.enum(CAPACITY_OPS).default('read'),
  /** People at once, one step each, in rising order. */
  clients: z
    .array(z.number().int().min(1).max(MAX_CAPACITY_USERS))
    .min(1)
    .max(MAX_CAPACITY_STEPS)
    .refine((steps) => steps.every((users, index) => index === 0 || users > (steps[index - 1] ?? 0)), 'The steps must rise: 1,2,4,8,16,32.')
    .default([1, 2, 4, 8, 16, 32]),
  /** Each step's measured time, after its warm-up. */
  seconds: z.number().min(1).max(600).default(10),
  warmupSeconds: z.number().min(0).max(120).default(3),
  /** The file each person copies over and over, bytes. */
  fileBytes: z
    .number()
    .int()
    .min(64 * 1024)
    .max(16 * 2 ** 30)
    .default(64 * 2 ** 20),
  /** An iperf3 server beside the share (host[:port]) for the probe's bandwidth; else the probe reads through SMB. */
  iperf: z.string().min(1).optional(),
  /** The bottleneck's queue, bytes, for the model (default: one BDP). */
  bufferBytes: z
    .number()
    .int()
    .positive()
    .max(2 ** 40)
    .optional(),
  /** The knee: the step after which one more person adds less than this share of what one person moved alone. */
  kneeShare: z.number().gt(0).max(1).default(0.5),
  target: CapacityTargetSchema.optional(),
}).strict();
export type CapacityInput = z.input<typeof CapacityInputSchema>;
export type CapacityParsedInput = z.output<typeof CapacityInputSchema>;

const LatencySchema = z.object({
  p50Ms: z.number().nullable(),
  p95Ms: z.number().nullable(),
  samples: z.number().int().nonnegative(),
});
export type LatencyFigures = z.infer<typeof LatencySchema>;

export const CapacityStepSchema = z.object({
  users: z.number().int().positive(),
  /** How each person's bytes were counted: the kernel's per-connection counters (Linux), or completed SMB requests. */
  measuredBy: z.enum(['tcp', 'requests']),
  seconds: z.number(),
  aggregateMbps: z.number(),
  perUser: z.array(z.object({ user: z.number().int().nonnegative(), op: z.enum(['read', 'write']), mbps: z.number(), failed: z.string().optional() })),
  /** Over the people still copying at the step's end. */
  minMbps: z.number().nullable(),
  medianMbps: z.number().nullable(),
  maxMbps: z.number().nullable(),
  fairness: z.number().nullable(),
  echo: LatencySchema,
  openClose: LatencySchema,
  /** The median ECHO's growth over the idle one, ms. */
  addedLatencyMs: z.number().nullable(),
  expected: z
    .object({
      aggregateMbps: z.number(),
      /** How far one run's aggregate strays from the model's (a standard deviation); absent in runs saved before it was kept. */
      runToRunMbps: z.number().nonnegative().optional(),
      perUserMbps: z.number(),
      addedLatencyMs: z.number(),
      limit: z.string(),
    })
    .nullable(),
});
export type CapacityStep = z.infer<typeof CapacityStepSchema>;

export const CapacityResultSchema = z.object({
  share: z.string(),
  profile: z.enum(CLIENT_PROFILE_IDS),
  server: z.enum(SERVER_PROFILE_IDS),
  op: z.enum(CAPACITY_OPS),
  fileBytes: z.number(),
  seconds: z.number(),
  warmupSeconds: z.number(),
  startedAt: z.string(),
  negotiated: z.object({
    dialect: z.string(),
    signing: z.enum(SIGNING_ALGORITHMS).nullable(),
    encryption: z.enum(CIPHERS).nullable(),
    /** The SMB2 credits the server let each person use at once, as their copies showed it; the model took the server so. */
    creditsGranted: z.number().int().positive().optional(),
  }),
  link: z.object({ mbps: z.number(), rttMs: z.number(), bufferBytes: z.number(), method: z.string() }).nullable(),
  idle: z.object({ echo: LatencySchema, openClose: LatencySchema }),
  steps: z.array(CapacityStepSchema),
  knee: z.object({ users: z.number().nullable(), peakUsers: z.number(), peakMbps: z.number(), share: z.number() }),
  expectedKnee: z.object({ users: z.number().nullable(), peakUsers: z.number(), peakMbps: z.number() }).nullable(),
  /** Against the person's target: met or not, and the sentence that says so. */
  readiness: z.object({ target: CapacityTargetSchema, met: z.boolean(), basis: z.enum(['measured', 'modelled']), text: z.string() }).nullable(),
  failures: z.array(z.object({ user: z.number().int().nonnegative(), step: z.number().int().positive(), message: z.string() })),
});
export type CapacityResult = z.infer<typeof CapacityResultSchema>;

/** Whether a saved JSON document is a capacity run (and not an assessment's report). */
export function isCapacityDocument(json: unknown): boolean {
  return typeof json === 'object' && json !== null && 'knee' in json && 'steps' in json;
}

/** A saved capacity run's text, checked against the schema; what is wrong names the file. */
export function parseCapacityText(text: string, name: string): CapacityResult {
  checkReportSize(text.length, name);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new PipefillInputError(`${name} is not JSON.`, 'Give a capacity run saved by `pipefill capacity --out`.');
  }
  return parseInput(CapacityResultSchema, json, `capacity run ${name}`);
}
