// The end of a run's scratch folder, whatever ended the run, and what a
// failed run says of a folder it could not remove. A server whose signatures
// stop verifying refuses the run's session and every new one: six runs
// against such a server left six folders and said nothing of them (issue 50,
// item 8). The next run sweeps such a folder (its lease went with the dead
// run, its marker proves it Pipefill's); until then, the person is told.

import { SmbError } from '../smb/errors.js';
import type { RequestOptions } from '../smb/request-frames.js';
import type { ScratchFolder } from './scratch.js';
import { removeStaleScratch } from './scratch-sweep.js';
import type { SmbSession } from '../smb/session.js';

/**
 * Removes the folder over the run's own session where it is still open, else
 * by a sweep on a fresh one (the folder is then an orphan). Never throws: the
 * recycle bin that kept the emptied files, and the folder's name where it is
 * still on the share.
 */
export async function removeAtEnd(
  scratch: ScratchFolder,
  session: SmbSession,
  openFresh: () => Promise<SmbSession>,
  options: RequestOptions,
): Promise<{ readonly recycleBin?: string; readonly left?: string }> {
  if (session.connection.isOpen) {
    return scratch.remove(options).catch(() => ({ left: scratch.name }));
  }
  const fresh = await openFresh().catch(() => undefined);
  if (!fresh) return { left: scratch.name };
  try {
    const swept = await removeStaleScratch(fresh, scratch.sweepRules(false), options).catch((): readonly string[] => []);
    return swept.includes(scratch.name) ? {} : { left: scratch.name };
  } finally {
    await fresh.end().catch(() => undefined);
  }
}

/** Each error this module made: the hint it started from and the folders it names, so a later step adds to one sentence. */
const noted = new WeakMap<SmbError, { readonly hint: string; readonly left: readonly string[] }>();

/** This error's note, or that of an error it wraps with the same hint (an assessment's step names itself in the message only). */
function notedOf(error: SmbError): { readonly hint: string; readonly left: readonly string[] } | undefined {
  for (let at: unknown = error, depth = 0; at instanceof SmbError && depth < 8; at = at.cause, depth += 1) {
    const note = noted.get(at);
    if (note) return at.hint === error.hint ? note : undefined;
  }
  return undefined;
}

/** What a hint says of the folders a run left. */
function leftSentence(left: readonly string[]): string {
  const [it, its, proves] = left.length === 1 ? ['it', 'its marker', 'proves it'] : ['them', 'their markers', 'prove them'];
  const folders = left.length === 1 ? `The scratch folder ${left[0]} is` : `The scratch folders ${left.join(' and ')} are`;
  return `${folders} still on the share: neither this connection nor a new one could remove ${it}. Pipefill's next run on this share removes ${it} (${its} ${proves} Pipefill's), or remove ${it} by hand.`;
}

/**
 * A failed run's error, with the folders it left on the share named in its
 * hint, in one sentence however many steps add to it (the probe's, then the
 * copies'). Other errors, and a cancellation, go on as they are.
 */
export function withFolderLeft(error: unknown, left: readonly (string | undefined)[]): unknown {
  if (!(error instanceof SmbError) || error.kind === 'cancelled') return error;
  const before = notedOf(error) ?? { hint: error.hint, left: [] };
  const all = [...new Set([...before.left, ...left.filter((name): name is string => name !== undefined)])];
  if (all.length === before.left.length) return error;
  const named = new SmbError(error.kind, error.message, `${before.hint} ${leftSentence(all)}`, error.status, { cause: error });
  noted.set(named, { hint: before.hint, left: all });
  return named;
}
