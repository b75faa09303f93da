// The what-if planner: every client generation's predicted time for the
// TR-3869 tests over one link, with no share at all.

import type { ClientProfileId, Op } from './client-profiles.js';
import { CLIENT_PROFILE_IDS } from './client-profiles.js';
import { PipefillInputError } from './errors.js';
import type { Link } from './link.js';
import type { ProtectionRequest } from './negotiation.js';
import type { Prediction } from './predict.js';
import { predict } from './predict.js';
import type { ServerProfileId } from './server-profiles.js';

/** The two tests TR-3869 ran, the ones a branch review asks about. */
export const PLANNER_WORKLOADS = ['file:100MB', 'tr3869-dirset'] as const;
export const PLANNER_OPS: readonly Op[] = ['read', 'write'];

export interface PlanCell {
  readonly client: ClientProfileId;
  readonly workload: string;
  readonly op: Op;
  readonly prediction: Prediction;
}

export interface PlanSession {
  readonly security?: ProtectionRequest;
  readonly channels?: number;
}

/** A client that cannot take part with this server and session (no common dialect, no cipher, no multichannel), and why. */
export interface PlanRefusal {
  readonly client: ClientProfileId;
  readonly reason: string;
}

export function planLink(
  link: Link,
  server: ServerProfileId,
  clients: readonly ClientProfileId[] = CLIENT_PROFILE_IDS,
  workloads: readonly string[] = PLANNER_WORKLOADS,
  session: PlanSession = {},
): { cells: PlanCell[]; refused: PlanRefusal[] } {
  const cells: PlanCell[] = [];
  const refused: PlanRefusal[] = [];
  for (const client of clients) {
    try {
      const rows = workloads.flatMap((workload) =>
        PLANNER_OPS.map((op) => ({ client, workload, op, prediction: predict({ client, server, op, workload, link, ...session }) })),
      );
      cells.push(...rows);
    } catch (error) {
      // A pairing the protocol refuses is part of the answer, not a failure of the plan.
      if (!(error instanceof PipefillInputError)) throw error;
      refused.push({ client, reason: error.message });
    }
  }
  return { cells, refused };
}
