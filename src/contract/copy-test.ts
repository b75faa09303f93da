// A test copy as the contract carries it: where, as whom, which generation,
// which direction and workload in; the timed result out.

import { z } from 'zod';
import { CLIENT_PROFILE_IDS, CLIENT_PROFILES } from '../model/client-profiles.js';
import { creditsSeen } from '../model/credits-seen.js';
import type { Observations } from '../model/server-as-seen.js';
import { CIPHERS, DIALECTS, SIGNING_ALGORITHMS } from '../model/smb-security.js';
import { LoginUsedSchema, ShareLoginSchema } from './share-login.js';

export const CopyTestInputSchema = ShareLoginSchema.extend({
  profile: z.enum(CLIENT_PROFILE_IDS),
  op: z.enum(['read', 'write']),
  workload: z.string().min(1),
  /** Check every byte (default true). */
  verify: z.boolean().optional(),
  /** Stop once the rate has settled, or after this many seconds, and project the whole workload's time. */
  budgetSeconds: z.number().positive().max(3600).optional(),
}).strict();
/** As a front end sends it (the share as typed). */
export type CopyTestInput = z.input<typeof CopyTestInputSchema>;
/** As a service receives it: defaults applied, the share parsed (ShareRef). */
export type CopyTestParsedInput = z.output<typeof CopyTestInputSchema>;

export const TimelinePointSchema = z.object({ tMs: z.number(), bytes: z.number(), ops: z.number() });

export const CopyTestResultSchema = z.object({
  profile: z.enum(CLIENT_PROFILE_IDS),
  op: z.enum(['read', 'write']),
  workload: z.string(),
  /** The whole workload's time: measured, or projected where `projected` says so. */
  seconds: z.number(),
  /** The workload's bytes (all moved, unless `projected`). */
  bytes: z.number(),
  throughputMbps: z.number(),
  ops: z.number(),
  metadataRoundTrips: z.number(),
  timeline: z.array(TimelinePointSchema),
  negotiated: z.object({
    dialect: z.string(),
    maxReadSize: z.number(),
    maxWriteSize: z.number(),
    creditsGrantedMax: z.number(),
    /** The credits held while a request waited for a grant (time-weighted median), and the share of the copy's time something waited (src/smb/credits.ts). Absent where nothing waited. */
    creditsHeldWhileWaiting: z.number().optional(),
    creditWaitingFraction: z.number().optional(),
    /** The algorithm every message was signed with, or null (reports written before SMB 3 support have neither field). */
    signing: z.enum(SIGNING_ALGORITHMS).nullable().optional(),
    /** The cipher every message was encrypted with, or null. */
    encryption: z.enum(CIPHERS).nullable().optional(),
    signingRequiredBy: z.enum(['server', 'profile', 'person']).optional(),
    encryptionRequiredBy: z.enum(['server', 'share', 'person']).optional(),
    /** The profile's own dialects, when the server refused them and the copy moved up to SMB 3. */
    movedUpFrom: z.array(z.enum(DIALECTS)).optional(),
    login: LoginUsedSchema.optional(),
  }),
  emulation: z.string().nullable(),
  /** The share's recycle bin that kept (emptied) copies of the files Pipefill removed (Samba's vfs_recycle, NAS bins). */
  keptByRecycleBin: z.string().max(64).optional(),
  verified: z.boolean(),
  /** Files copied at once, as robocopy /MT:n copies them (absent: one at a time). */
  lanes: z.number().int().min(2).max(128).optional(),
  /** The kernel's view of the copy's TCP connection (Linux): the server's window, time spent waiting on it, retransmissions. */
  tcp: z
    .object({
      peerWindowBytes: z.number().optional(),
      receiveSpaceBytes: z.number().optional(),
      peerWindowLimitedFraction: z.number().optional(),
      sendBufferLimitedFraction: z.number().optional(),
      retransmittedFraction: z.number().optional(),
      rttStartMs: z.number().optional(),
      rttEndMs: z.number().optional(),
      outOfOrderPackets: z.number().optional(),
      /** A write's bytes sent again, split by the round trip at their loss (src/model/loss-split.ts): with the queue near its fullest, the copy's own; with none behind them, the path's. */
      lossAtQueueFraction: z.number().min(0).max(1).optional(),
      lossOnPathFraction: z.number().min(0).max(1).optional(),
      /** The most the round trip rose above its least during the write (ms). */
      peakQueueMs: z.number().nonnegative().optional(),
      /** Bytes sent again too few to say whose, and the deepest queue at losses not put to the path (ms). */
      lossUnsplitFraction: z.number().min(0).max(1).optional(),
      queueAtLossMs: z.number().nonnegative().optional(),
      congestion: z.string().optional(),
    })
    .optional(),
  /**
   * A budgeted copy that stopped before the end (its rate settled, or its
   * slot ran out): what was measured, and how `seconds` was projected from it
   * (src/model/settle.ts). Absent when every byte was moved.
   */
  projected: z
    .object({
      /** `not-run`: no copy of this workload ran (a quick assessment); it is projected from the same generation's file copy. */
      stoppedBy: z.enum(['settled', 'time', 'not-run']),
      measuredBytes: z.number(),
      measuredSeconds: z.number(),
      filesTouched: z.number(),
      rateMbps: z.number(),
      /**
       * Whose rate: the copy's own, or (a directory set) the same generation's file copy's just before; `model-scaled`
       * (a quick run's directory set, not run): the model's time for it scaled by the file copy's measured over the model's.
       */
      rateFrom: z.enum(['this-copy', 'file-copy', 'model-scaled']).optional(),
      /** For `model-scaled`: the model's time for the workload and the scale applied to it. */
      modelSeconds: z.number().optional(),
      modelScale: z.number().optional(),
      /** A folder stopped after one file, too thin to scale by: the scale is the same generation's file copy's (absent: its own). */
      scaledBy: z.enum(['file-copy']).optional(),
      /** How far the two halves of the rate disagreed, as a share of it; null when no spread could be measured. */
      rateRelativeHalfWidth: z.number().nullable(),
      lowSeconds: z.number(),
      highSeconds: z.number().nullable(),
    })
    .optional(),
});
export type CopyTestResult = z.infer<typeof CopyTestResultSchema>;

/**
 * What one copy showed of the server and the path, for the model of that
 * copy: the credits it was allowed, the server's window and the time sends
 * waited on it, and its retransmissions, except on a share on this machine,
 * which has no path to lose packets on (its retransmissions are the hosts'
 * timers firing late).
 */
export function observationsOfCopy(result: Pick<CopyTestResult, 'negotiated' | 'tcp' | 'profile'>, onThisMachine: boolean): Observations {
  const credits = creditsSeen([result.negotiated]);
  const tcp = result.tcp;
  return {
    ...(credits === undefined ? {} : { creditsGranted: credits }),
    ...(tcp?.peerWindowBytes === undefined ? {} : { peerWindowBytes: tcp.peerWindowBytes }),
    ...(tcp?.peerWindowLimitedFraction === undefined ? {} : { peerWindowLimitedFraction: tcp.peerWindowLimitedFraction }),
    ...(tcp?.retransmittedFraction === undefined || onThisMachine ? {} : { retransmittedFraction: tcp.retransmittedFraction }),
    ...(result.negotiated.creditWaitingFraction === undefined ? {} : { creditWaitingFraction: result.negotiated.creditWaitingFraction }),
    ...signingChoiceOf(result),
  };
}

/** An SMB 3.1.1 copy's signing algorithm, beside those its generation listed ahead of it (Observations.signingChoice). */
export function signingChoiceOf(result: Pick<CopyTestResult, 'negotiated' | 'profile'>): Pick<Observations, 'signingChoice'> {
  const chosen = result.negotiated.signing;
  if (result.negotiated.dialect !== '3.1.1' || !chosen) return {};
  const listed = CLIENT_PROFILES[result.profile].offer.signing;
  const at = listed.indexOf(chosen);
  return at > 0 ? { signingChoice: { chosen, passedOver: listed.slice(0, at) } } : {};
}

export const ProgressEventSchema = z.object({
  /** What is happening: `connect`, `prepare`, `copy`, `verify`, `clean-up`, or an assessment's step. */
  step: z.string(),
  bytes: z.number(),
  totalBytes: z.number(),
  /** The whole call's progress, 0 to 1, where the call knows it. */
  fraction: z.number().min(0).max(1).optional(),
  /** The test copy this event belongs to, in an assessment. */
  test: z.object({ profile: z.enum(CLIENT_PROFILE_IDS), op: z.enum(['read', 'write']), workload: z.string(), index: z.number(), count: z.number() }).optional(),
  /** During a timed copy: time into it, and the rate over the last second (for live charts). */
  live: z.object({ tMs: z.number(), mbps: z.number(), opsPerSecond: z.number() }).optional(),
  /** An assessment's time budget and the time spent of it so far. */
  budget: z.object({ seconds: z.number(), elapsedSeconds: z.number() }).optional(),
});
export type ProgressEvent = z.infer<typeof ProgressEventSchema>;
