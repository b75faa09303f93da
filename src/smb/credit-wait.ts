// A request's message ids, taken from the server's credit grant: the lowest
// free ones, a multi-credit request's a consecutive range, and a request
// with none free waits for them (MS-SMB2 3.2.4.1.3, 3.2.4.1.6). A compound's
// are taken all at once, numbered one after the other from the first. The
// wait is covered by the caller's deadline and cancel, and ends in a typed
// error that says which.

import { CreditStarvationError, CreditWaitEnded } from './credits.js';
import type { CreditWindow } from './credits.js';
import { cancelledError, SmbError } from './errors.js';
import type { RequestOptions, RequestSpec } from './request-frames.js';

export async function takeMessageIds(credits: CreditWindow, specs: readonly RequestSpec[], options: RequestOptions): Promise<bigint[]> {
  const ids: bigint[] = [];
  try {
    // A compound's credits are taken at once, its messages numbered one after the other from the first id:
    // taken one message at a time, compounds sent side by side could each hold part of the window and all
    // wait for the rest, with nothing on the wire to bring a grant (cleanup's parallel 3-message deletes
    // wedged a 16-credit connection for good).
    const charges = specs.map((spec) => spec.creditCharge ?? 1);
    // The caller's deadline and cancel cover the wait for credits too: a clean-up behind a starved window ends on time.
    let next = await credits.acquire(
      charges.reduce((sum, charge) => sum + charge, 0),
      {
        ...(options.signal ? { signal: options.signal } : {}),
        ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
      },
    );
    for (const charge of charges) {
      ids.push(next);
      next += BigInt(charge);
    }
  } catch (error) {
    if (error instanceof CreditWaitEnded) {
      if (error.reason === 'cancelled') throw cancelledError();
      throw new SmbError(
        'timeout',
        `The server granted no credits for ${specs[0]?.what ?? 'a request'} within ${(options.timeoutMs ?? 0) / 1000} s.`,
        'The server or the path to it may be overloaded; try again.',
        undefined,
        { cause: error },
      );
    }
    if (error instanceof CreditStarvationError)
      throw new SmbError('protocol', error.message, 'The server stopped granting SMB2 credits; check its credit settings (smb2 max credits).', undefined, {
        cause: error,
      });
    throw error;
  }
  return ids;
}
