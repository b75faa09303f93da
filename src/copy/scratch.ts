// The only place a test copy writes: a private folder `.pipefill-<stamp>-<random>`
// (`pipefill-scratch-<stamp>-<random>` on a share that refuses dot names)
// at the root of the share, or in the folder the share path names below it
// (`\\server\share\team\scratch`, for people who may write only there).
// It is removed on success, failure and cancel, and
// at the next start when a run died before it could (crash, killed server,
// lost network).
//
// Telling a dead run's folder from a live one's: a live run holds
// `<folder>/.lease` open without FILE_SHARE_DELETE; the server closes that
// handle when the run's connection goes, whatever killed it. A start that can
// open the lease for deletion has found an orphan and removes it; a folder
// whose lease is held is never touched, whatever its age. Where the server
// keeps no share modes (so a lease proves nothing), only folders untouched
// for a day by the server's own clock go: a client whose clock runs ahead
// must not take a live run's folder for an old one.
//
// Only a folder that proves it is a Pipefill run's is swept: the marker its
// run wrote into it (scratch-marker.ts), read before anything inside is
// touched. What a clean-up removes, and how, is scratch-removal.ts.

import { randomBytes } from 'node:crypto';
import { RELATED_FILE_ID } from '../smb/request-frames.js';
import type { RequestOptions } from '../smb/request-frames.js';
import { SmbError } from '../smb/errors.js';
import {
  Access,
  CreateOption,
  Disposition,
  FileInfoClass,
  InfoType,
  latestTime,
  parseCreate,
  parseInternalInfo,
  parseQueryInfo,
  queryInfoRequest,
  ShareAccess,
  writeRequest,
} from '../smb/messages.js';
import type { FileTimes } from '../smb/messages.js';
import { Command, Status } from '../smb/protocol.js';
import type { SmbSession } from '../smb/session.js';
import type { ScratchNames } from './scratch-marker.js';
import { DOTTED_NAMES, markerText, namesOf, VISIBLE_NAMES } from './scratch-marker.js';
import { emptyAndDelete, removeListed } from './scratch-removal.js';
import { passOver, removeStaleScratch, workFolder } from './scratch-sweep.js';
import type { SweepRules } from './scratch-sweep.js';

export { isPipefillEntry } from './scratch-removal.js';
export { removeStaleScratch, STALE_AFTER_MS } from './scratch-sweep.js';
export type { SweepRules } from './scratch-sweep.js';

export const SCRATCH_PREFIX = DOTTED_NAMES.folderPrefix;

/** A name's stamp is only for people reading a listing: age is judged by the server's clock, never by it. */
function stamp(date: Date): string {
  return date.toISOString().replace(/[-:]/g, '').slice(0, 15);
}

/** Joins a path inside the scratch folder; refuses anything that could leave it. */
export function scratchPath(root: string, relative: string): string {
  const parts = relative.split(/[/\\]/).filter((part) => part !== '' && part !== '.');
  if (parts.some((part) => part === '..' || part.includes(':'))) {
    throw new SmbError('protocol', `Refusing to write outside the scratch folder: ${relative}.`, 'This is a bug in Pipefill; please report it.');
  }
  return [root, ...parts].join('/');
}

/** A folder as the server made it: its id (0 where the server gives none) and its times on the server's clock. */
interface FolderMade {
  readonly id: bigint;
  readonly times: FileTimes;
}

export class ScratchFolder {
  /**
   * Whether the server keeps another open from deleting this folder's lease
   * (share modes, MS-SMB2 3.3.5.9). Where it does not (impacket's and
   * quicksand's servers, a Go one), a run's lease cannot show it alive, and
   * old folders are swept by age alone. Known after createChecked.
   */
  enforcesShareModes = true;

  private constructor(
    private readonly session: SmbSession,
    readonly name: string,
    private readonly leaseId: Buffer,
    private readonly made: FolderMade,
  ) {}

  /** The server's clock when this folder was made: "now" for judging other folders' age. */
  get serverMadeAt(): bigint {
    return latestTime(this.made.times);
  }

  /**
   * Creates the run's folder and asks the server on its own lease whether
   * share modes hold, which the sweep of what dead runs left needs to know
   * (sweepOthersAside, or a fresh session's after a broken connection):
   * orphans go by their lease only where share modes hold (elsewhere a live
   * run's folder would look orphaned: an assessment once deleted its own).
   */
  static async createChecked(session: SmbSession, options: RequestOptions = {}, now = new Date()): Promise<ScratchFolder> {
    const own = await ScratchFolder.create(session, options, now);
    try {
      own.enforcesShareModes = await holdsShareModes(session, own.name, options);
      return own;
    } catch (error) {
      await own.discardEmpty();
      throw error;
    }
  }

  /**
   * Creates a new scratch folder, takes its lease and writes its marker:
   * dotted, or, on a share that refuses names starting with a dot (it answers
   * "no such file" for one where the folder it goes in exists), visible.
   */
  static async create(session: SmbSession, options: RequestOptions = {}, now = new Date()): Promise<ScratchFolder> {
    try {
      return await ScratchFolder.createNamed(session, DOTTED_NAMES, options, now);
    } catch (error) {
      if (!(error instanceof DotsRefused)) throw error;
      return ScratchFolder.createNamed(session, VISIBLE_NAMES, options, now).catch((visible: unknown) => {
        throw visible instanceof DotsRefused ? visible.cause : visible;
      });
    }
  }

  private static async createNamed(session: SmbSession, names: ScratchNames, options: RequestOptions, now: Date): Promise<ScratchFolder> {
    const leaf = `${names.folderPrefix}${stamp(now)}-${randomBytes(4).toString('hex')}`;
    const name = `${workFolder(session)}${leaf}`;
    const made = await makeFolder(session, name, options).catch(async (error: unknown) => {
      throw await explainRefusedFolder(session, name, error, options);
    });
    let leaseId: Buffer | undefined;
    try {
      const lease = await session.create(
        {
          path: `${name}/${names.lease}`,
          access: Access.readData | Access.writeData | Access.delete,
          disposition: Disposition.create,
          options: CreateOption.nonDirectory | CreateOption.deleteOnClose,
          shareAccess: ShareAccess.read | ShareAccess.write,
        },
        options,
      );
      leaseId = lease.fileId;
      await writeMarker(session, name, markerText({ folder: leaf, folderId: made.id }), options);
      return new ScratchFolder(session, name, lease.fileId, made);
    } catch (error) {
      const quick = { timeoutMs: 5_000 };
      if (leaseId) await session.close(leaseId, quick).catch(() => undefined);
      await session.deletePath(`${name}/${names.marker}`, false, quick).catch(() => undefined);
      await session.deletePath(name, true, quick).catch(() => undefined);
      throw error;
    }
  }

  /** This folder's lease, marker and probe names (dotted, or visible: scratch-marker.ts). */
  private get names(): ScratchNames {
    return namesOf(this.name);
  }

  /** A path inside the folder, for every create the engine makes. */
  path(relative: string): string {
    return scratchPath(this.name, relative);
  }

  /**
   * Sweeps what dead runs left (removeStaleScratch), before anything is
   * written here, on a session of its own that `open` makes and this ends.
   * Not on the run's own: the sweep lists the share's root, and the smbd
   * process that served that listing then took the run's writes slower: a
   * 256 MiB signed write measured 0.82-0.85x smbclient put with the sweep on
   * its connection, 1.07-1.13x without it, and the same listing on another
   * connection cost nothing (CLI copy-test on loopback, 6-10 alternating
   * rounds each, 2026-11-26). A second connection that will not open skips
   * the sweep (a later run does it). A server that breaks the protocol in a
   * listing ends the run here, with this folder (only its lease and marker
   * so far) removed without one.
   */
  async sweepOthersAside(open: () => Promise<SmbSession>, options: RequestOptions = {}): Promise<void> {
    const sweeper = await open().catch(() => undefined);
    if (!sweeper) return;
    try {
      await removeStaleScratch(sweeper, this.sweepRules(), options);
    } catch (error) {
      await this.discardEmpty();
      throw error;
    } finally {
      await sweeper.end().catch(() => undefined);
    }
  }

  /** How a sweep started by this run judges other folders: by its lease test, this folder spared, the server's clock. */
  sweepRules(spare = true): SweepRules {
    return { orphansByLease: this.enforcesShareModes, serverNow: this.serverMadeAt, ...(spare ? { spare: this.name } : {}) };
  }

  /** Removes this folder while it holds only its lease and marker: no listing. */
  private async discardEmpty(): Promise<void> {
    const quick = { timeoutMs: 5_000 };
    await this.session.close(this.leaseId, quick).catch(() => undefined);
    await this.session.deletePath(`${this.name}/${this.names.marker}`, false, quick).catch(() => undefined);
    await this.session.deletePath(this.name, true, quick).catch(() => undefined);
  }

  /**
   * Removes the folder and everything in it, marker and lease last (a
   * clean-up cut short leaves a folder the next sweep still knows), and
   * checks it is gone. On a share with a recycle bin, the files this run
   * made are cut to nothing first (the bin keeps what is deleted: 29 MiB
   * after two small runs), each checked to be the run's own
   * (scratch-removal.ts); the result says which bin kept them.
   */
  async remove(options: RequestOptions = {}): Promise<{ recycleBin?: string }> {
    // A recycle bin may not be there until something is deleted (vfs_recycle makes it then): an empty file,
    // made and deleted here first, brings it out, so the bin keeps nothing of this run's but empty files.
    // Best-effort: a server that refuses it leaves the bin unseen and the clean-up goes on; a session that ended
    // (a server killed mid-copy) ends the clean-up here, rather than each request after it waiting out its deadline.
    await deleteEmptyProbe(this.session, this.name, options).catch(refusedOnly);
    const bins = await recycleBins(this.session, options);
    const listing = await this.session.listDirectoryClosing(this.name, options);
    let left: string[];
    try {
      // Still the folder this run made: not swapped for a link or another folder since.
      if (this.made.id !== 0n && listing.self !== undefined && listing.self !== 0n && listing.self !== this.made.id)
        left = [`${this.name} (not the folder this run made)`];
      else
        left = await removeListed(
          this.session,
          this.name,
          0,
          options,
          { keep: new Set([this.names.lease, this.names.marker]), ...(bins.length > 0 ? { emptyFilesMadeSince: this.made.times.created } : {}) },
          listing,
        );
    } finally {
      await listing.closed;
    }
    if (left.length > 0) throw leftError(this.name, left);
    const marker = `${this.name}/${this.names.marker}`;
    if (bins.length > 0) await emptyAndDelete(this.session, marker, this.made.times.created, options);
    else await this.session.deletePath(marker, false, options);
    // The lease is delete-on-close: closing it deletes it, and the folder is then empty.
    await this.session.close(this.leaseId, options).catch(() => undefined);
    await this.session.deletePath(this.name, true, options);
    if (await folderExists(this.session, this.name, options))
      throw new SmbError(
        'protocol',
        `The server answered that the scratch folder ${this.name} was removed, and it is still there.`,
        'Remove that folder from the share by hand; the server log may say why it stayed.',
      );
    const recycleBin = await recycleBinHolding(this.session, this.name, bins, options);
    return recycleBin === undefined ? {} : { recycleBin };
  }
}

/** Passes over a server's refusal (a status); anything that ends the session, or breaks the protocol, goes on up. */
function refusedOnly(error: unknown): undefined {
  if (passOver(error)) return undefined;
  throw error;
}

/** Makes the folder (FILE_CREATE: never an existing name or link) and asks its id, in one compound: create, query, close. */
async function makeFolder(session: SmbSession, name: string, options: RequestOptions): Promise<FolderMade> {
  const [created, queried] = await session.openRelated(
    { path: name, access: Access.listDirectory | Access.readAttributes, disposition: Disposition.create, options: CreateOption.directory, directory: true },
    [{ command: Command.queryInfo, body: queryInfoRequest(RELATED_FILE_ID, InfoType.file, FileInfoClass.internal), what: `query ${name}`, anyStatus: true }],
    'make',
    options,
  );
  // A server that keeps no ids (or will not say) gives 0: the marker then proves the folder by its name alone.
  const id = queried?.header.status === Status.success ? parseInternalInfo(parseQueryInfo(queried.body)) : 0n;
  return { id, times: parseCreate(created.body).times };
}

/** Makes an empty file and deletes it (FILE_CREATE, delete-on-close, close: one compound). */
async function deleteEmptyProbe(session: SmbSession, name: string, options: RequestOptions): Promise<void> {
  await session.openRelated(
    {
      path: `${name}/${namesOf(name).probe}`,
      access: Access.delete | Access.readAttributes,
      disposition: Disposition.create,
      options: CreateOption.nonDirectory | CreateOption.deleteOnClose,
    },
    [],
    'make',
    options,
  );
}

/** Writes the marker: create (FILE_CREATE), write, close in one compound. */
async function writeMarker(session: SmbSession, name: string, text: Buffer, options: RequestOptions): Promise<void> {
  const path = `${name}/${namesOf(name).marker}`;
  await session.openRelated(
    { path, access: Access.writeData | Access.readAttributes, disposition: Disposition.create, options: CreateOption.nonDirectory },
    [{ command: Command.write, body: writeRequest(RELATED_FILE_ID, 0, text.length), payload: text, what: `write ${path}` }],
    'make',
    options,
  );
}

/** Why the server would not make the scratch folder, in words a person can act on. */
async function explainRefusedFolder(session: SmbSession, name: string, error: unknown, options: RequestOptions): Promise<unknown> {
  if (error instanceof SmbError && error.kind === 'access-denied') return refusedFolder(session, error);
  const missing = error instanceof SmbError && (error.status === Status.objectNameNotFound || error.status === Status.objectPathNotFound);
  if (!missing) return error;
  // Below the share, the folder the person named may not be there (or not visible to them).
  const { folder } = session.target;
  if (folder && !(await folderExists(session, folder, options).catch(() => false)))
    return new SmbError(
      'not-found',
      `The folder ${folder} is not on the share ${session.target.share} (or this user cannot see it), so Pipefill has nowhere to work.`,
      'Check the folder in the share path, or give the share itself; Pipefill makes its scratch folder in the folder the path names.',
      error.status,
      { cause: error },
    );
  // Making a folder where the parent exists cannot miss a path: the server hides or refuses names that start with a dot.
  const refusal = new SmbError(
    'access-denied',
    `The server would not make Pipefill's scratch folder ${name}: it answers "no such file" for a name that starts with a dot, as Samba does with veto files = /.*/ (hidden files refused).`,
    'Allow dot-named files on this share for the test (Samba: drop /.*/ from veto files, or add a share without it), or test another share.',
    error.status,
    { cause: error },
  );
  // A dotted name refused: create() tries the visible names; a visible one refused is this refusal after all.
  return namesOf(name) === DOTTED_NAMES ? new DotsRefused(refusal) : refusal;
}

/** The share refused a dotted scratch folder's name (a veto of every dot name): the visible names go next. */
class DotsRefused extends Error {
  constructor(override readonly cause: SmbError) {
    super(cause.message);
  }
}

/** FILE_ADD_FILE, FILE_ADD_SUBDIRECTORY, GENERIC_ALL, GENERIC_WRITE: any of them in a share's MaximalAccess lets this account write somewhere on it. */
const SHARE_WRITE_ACCESS = 0x2 | 0x4 | 0x10000000 | 0x40000000;

/**
 * Making the scratch folder was refused (issue 50): a share read-only for
 * this account (its TREE_CONNECT MaximalAccess holds no write right) is told
 * apart from a share the account may write in, but not where Pipefill tried:
 * there the fix is the folder it may write in, named in the share path.
 */
function refusedFolder(session: SmbSession, cause: SmbError): SmbError {
  const { host, share, folder } = session.target;
  const access = session.shareMaximalAccess;
  if (access !== undefined && (access & SHARE_WRITE_ACCESS) === 0) {
    return new SmbError(
      'access-denied',
      `The share ${share} is read-only for this account: Pipefill could not make its scratch folder there.`,
      'Pipefill writes only in a folder it makes and removes: test a share this account may write to (Samba: read only = no, or write list), or log on as an account that may.',
      cause.status,
      { cause },
    );
  }
  return new SmbError(
    'access-denied',
    `${folder ? `The folder ${folder} of the share ${share}` : `The top of the share ${share}`} refuses new folders to this account${access === undefined ? '' : ', though the share lets it write'}.`,
    `If this account may write only in a folder of the share, name that folder: //${host}/${share}/FOLDER (Pipefill makes its scratch folder there and removes it).`,
    cause.status,
    { cause },
  );
}

function leftError(folder: string, left: readonly string[]): SmbError {
  return new SmbError(
    'protocol',
    `The scratch folder ${folder} holds ${left.length === 1 ? 'an entry' : `${left.length} entries`} Pipefill did not make (${left.slice(0, 3).join(', ')}${left.length > 3 ? ', ...' : ''}); they were left in place, and so was the folder.`,
    'Look at that folder on the server and remove it by hand if it is yours to remove.',
  );
}

/** Whether a folder of this path opens (anything but "not found" is an answer to pass on). */
async function folderExists(session: SmbSession, path: string, options: RequestOptions): Promise<boolean> {
  try {
    const opened = await session.create(
      { path, access: Access.readAttributes, disposition: Disposition.open, options: CreateOption.directory, directory: true },
      options,
    );
    await session.close(opened.fileId, options);
    return true;
  } catch (error) {
    // Not there, however the server words it (impacket: STATUS_NO_SUCH_FILE).
    if (
      error instanceof SmbError &&
      (error.status === Status.objectNameNotFound || error.status === Status.objectPathNotFound || error.status === Status.noSuchFile)
    )
      return false;
    throw error;
  }
}

/** Recycle bins by the names NAS makers and Samba's vfs_recycle give them. */
const RECYCLE_BIN = /^(\.recycle|#recycle|@recycle|\.trash|\$recycle\.bin)$/i;

/** The recycle bins at the share's root (where vfs_recycle keeps the tree): none, on most shares. */
async function recycleBins(session: SmbSession, options: RequestOptions): Promise<string[]> {
  const root = await session.listDirectoryWithLinks('', options).catch(refusedOnly);
  return (root?.entries ?? []).filter((entry) => entry.isDirectory && !entry.isReparsePoint && RECYCLE_BIN.test(entry.name)).map((entry) => entry.name);
}

/** Which of the share's recycle bins kept a folder of this name, if any. */
async function recycleBinHolding(session: SmbSession, name: string, bins: readonly string[], options: RequestOptions): Promise<string | undefined> {
  for (const bin of bins) if (await folderExists(session, `${bin}/${name}`, options).catch(() => false)) return bin;
  return undefined;
}

/** Whether a second open for deletion of a lease its holder shares no delete on is refused (STATUS_SHARING_VIOLATION). */
async function holdsShareModes(session: SmbSession, name: string, options: RequestOptions): Promise<boolean> {
  try {
    const probe = await session.create(
      {
        path: `${name}/${namesOf(name).lease}`,
        access: Access.delete | Access.readAttributes,
        disposition: Disposition.open,
        options: CreateOption.nonDirectory,
      },
      options,
    );
    // Not delete-on-close: closing this handle leaves the lease (and its own delete-on-close) as they were.
    await session.close(probe.fileId, options);
    return false;
  } catch (error) {
    if (error instanceof SmbError && error.status === Status.sharingViolation) return true;
    throw error;
  }
}
