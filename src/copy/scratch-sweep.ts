// The sweep of what dead runs left: scratch folders whose run is gone,
// touched only once they prove they are a Pipefill run's (the marker in the
// folder itself, naming it: scratch-marker.ts), and emptied of only what
// Pipefill makes (scratch-removal.ts), never cut, never through a link.
//
// Whether a run is gone: where the server keeps share modes, its lease is
// free (a held lease is a live run, whatever its age); elsewhere, the server
// has not touched its folder for a day by the server's own clock: a client
// whose clock runs ahead must not take a live run's folder for an old one
// (a run under faketime +2d once emptied a live run's folder as it copied).

import { RELATED_FILE_ID } from '../smb/request-frames.js';
import type { RequestOptions } from '../smb/request-frames.js';
import { SmbError } from '../smb/errors.js';
import { Access, CreateOption, Disposition, filetimeSpan, latestTime, parseCreate, parseRead, readRequest } from '../smb/messages.js';
import type { DirectoryEntry } from '../smb/messages.js';
import { Command, Status } from '../smb/protocol.js';
import type { SmbSession } from '../smb/session.js';
import { MARKER_MAX_BYTES, markerProves, namesOf, parseMarker, SCRATCH_FOLDER_NAME } from './scratch-marker.js';
import { reachedThroughLink, removeListed } from './scratch-removal.js';

export const STALE_AFTER_MS = 24 * 60 * 60 * 1000;

/** The folder scratch folders go in, as a path prefix: '' for the share's root, `team/scratch/` below it. */
export const workFolder = (session: SmbSession): string => (session.target.folder ? `${session.target.folder}/` : '');

/** Is the run that owns this folder gone? (Its lease can be opened for deletion, or is not there.) */
async function isOrphan(session: SmbSession, name: string, options: RequestOptions): Promise<boolean> {
  try {
    const lease = await session.create(
      {
        path: `${name}/${namesOf(name).lease}`,
        access: Access.delete | Access.readAttributes,
        disposition: Disposition.open,
        options: CreateOption.nonDirectory | CreateOption.openReparsePoint,
      },
      options,
    );
    await session.close(lease.fileId, options);
    return true;
  } catch (error) {
    if (error instanceof SmbError && error.status === Status.sharingViolation) return false;
    // A lease that is not there, however the server words it (STATUS_NO_SUCH_FILE from some servers), is held by no run.
    if (
      error instanceof SmbError &&
      (error.status === Status.objectNameNotFound || error.status === Status.objectPathNotFound || error.status === Status.noSuchFile)
    )
      return true;
    throw error;
  }
}

/** Failures that end the session, not one folder's clean-up: the sweep stops on these and passes them on. */
const SESSION_ENDING: readonly string[] = ['cancelled', 'connection-lost', 'timeout'];

/**
 * A folder the sweep may pass over: the server answered with a status (it
 * refused, or called the folder or its lease something odd). A server that
 * breaks the protocol (a listing that never ends or points into itself, a
 * reply that fails its signature) fails the run, as anywhere else.
 */
export const passOver = (error: unknown): boolean => error instanceof SmbError && error.status !== undefined && !SESSION_ENDING.includes(error.kind);

export interface SweepRules {
  /** The server keeps share modes, so a lease shows whether its run lives (ScratchFolder.enforcesShareModes). */
  readonly orphansByLease: boolean;
  /** The server's clock now (FILETIME): a run's own folder's time of making. Age is never judged by the client's clock. */
  readonly serverNow: bigint;
  /** A folder to leave alone: the sweeping run's own. */
  readonly spare?: string;
}

const STALE_AFTER = filetimeSpan(STALE_AFTER_MS);

/**
 * Whether a dead run left this folder: where share modes hold, its lease is
 * free (a held lease is a live run, whatever its age); elsewhere, the server
 * has not touched it for a day.
 */
async function leftByDeadRun(session: SmbSession, name: string, entry: DirectoryEntry, how: SweepRules, options: RequestOptions): Promise<boolean> {
  if (how.orphansByLease) return isOrphan(session, name, options);
  return how.serverNow - latestTime(entry.times) > STALE_AFTER;
}

/**
 * Removes scratch folders left by runs that died and returns their names.
 * A folder is touched only once it has proved it is a Pipefill run's (its
 * marker, in the folder itself, naming it) and that its run is gone
 * (leftByDeadRun); inside, only what Pipefill makes, never through a link,
 * and nothing is cut. Best-effort: a folder the server will not let go of
 * (or answers about with an odd status) is left for the next sweep, and the
 * run goes on; a failure that ends the session, or a server that breaks the
 * protocol, stops it (issue 37: one server's answer about a `.lease`
 * stopped every later run on its share).
 */
export async function removeStaleScratch(session: SmbSession, how: SweepRules, options: RequestOptions = {}): Promise<string[]> {
  const removed: string[] = [];
  // Scratch folders are found where runs make them: the share's root, or the folder the share path names.
  const folder = workFolder(session);
  const root = await session.listDirectoryWithLinks(folder.replace(/\/$/, ''), options).catch((error: unknown) => {
    if (passOver(error)) return undefined;
    throw error;
  });
  for (const entry of root?.entries ?? []) {
    const name = `${folder}${entry.name}`;
    if (entry.isReparsePoint || !entry.isDirectory || !SCRATCH_FOLDER_NAME.test(entry.name) || name === how.spare) continue;
    try {
      if (!(await sweepFolder(session, name, entry, root?.self, how, options))) continue;
      await session.deletePath(name, true, options);
      removed.push(name);
    } catch (error) {
      if (passOver(error)) continue;
      throw error;
    }
  }
  return removed;
}

/** Empties one candidate folder if it proves itself a dead run's; true when nothing is left in it. */
async function sweepFolder(
  session: SmbSession,
  name: string,
  entry: DirectoryEntry,
  rootId: bigint | undefined,
  how: SweepRules,
  options: RequestOptions,
): Promise<boolean> {
  const listing = await session.listDirectoryClosing(name, options);
  try {
    const expectedParent = rootId === undefined ? {} : { expectedParent: rootId };
    if (reachedThroughLink(listing, rootId)) return false;
    if (!markerProves(await readMarker(session, name, listing.entries, options), entry.name, listing.self)) return false;
    if (!(await leftByDeadRun(session, name, entry, how, options))) return false;
    // The marker goes last, so a sweep cut short leaves a folder the next one still knows.
    const left = await removeListed(session, name, 0, options, { ...expectedParent, keep: new Set([namesOf(entry.name).marker]) }, listing);
    if (left.length > 0) return false;
  } finally {
    await listing.closed;
  }
  await session.deletePath(`${name}/${namesOf(entry.name).marker}`, false, options);
  return true;
}

/** What a folder's marker says, read without following a link: undefined where there is none that could be one. */
async function readMarker(session: SmbSession, folder: string, entries: readonly DirectoryEntry[], options: RequestOptions) {
  const marker = namesOf(folder).marker;
  const entry = entries.find((candidate) => candidate.name === marker);
  if (!entry || entry.isDirectory || entry.isReparsePoint || entry.bytes > MARKER_MAX_BYTES) return undefined;
  const path = `${folder}/${marker}`;
  const [created, read] = await session.openRelated(
    {
      path,
      access: Access.readData | Access.readAttributes,
      disposition: Disposition.open,
      options: CreateOption.nonDirectory | CreateOption.openReparsePoint,
    },
    [
      {
        command: Command.read,
        body: readRequest(RELATED_FILE_ID, 0, MARKER_MAX_BYTES),
        what: `read ${path}`,
        replyBytes: 64 + 16 + MARKER_MAX_BYTES + 8,
        anyStatus: true,
      },
    ],
    'open',
    options,
  );
  if (!read) return undefined;
  if (parseCreate(created.body).isReparsePoint || read.header.status !== Status.success) return undefined;
  return parseMarker(parseRead(read.body, MARKER_MAX_BYTES));
}
