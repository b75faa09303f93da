// The shape of a promise checked (src/contract/promises.ts), apart from the
// check so that the report's schema can hold it without importing it.

import { z } from 'zod';

export const PromiseCheckSchema = z.object({
  knob: z.string().max(200),
  value: z.string().max(200),
  /** The copy the promise was told for (`write tr3869-dirset`, `read file:1GB`). */
  test: z.string().max(100),
  promisedSeconds: z.number().positive(),
  /** This run's time for that copy: its own copy of the same direction and kind, told for the whole. */
  measuredSeconds: z.number().positive(),
  /** When the earlier run was made (its startedAt). */
  since: z.string().max(40),
  /**
   * The hosts' calibrations' scatter the promise was judged with beside the model's 15% (src/contract/promises.ts
   * promiseScatter); absent where neither run calibrated the hosts.
   */
  scatter: z.number().nonnegative().finite().max(100).optional(),
  kept: z.boolean(),
  /** Other changes of the same earlier advice made since as well: the promise was for this one alone. */
  alsoMade: z.number().int().nonnegative(),
  sentence: z.string().max(600),
});
export type PromiseCheck = z.infer<typeof PromiseCheckSchema>;
