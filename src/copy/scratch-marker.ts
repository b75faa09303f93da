// What proves a `.pipefill-...` folder is a Pipefill run's: a small file the
// run writes into it as it makes it, naming the folder and the server's id of
// it. The sweep of dead runs' folders reads it before it touches anything
// inside; a folder of the right name without it (someone else's, a link to
// another folder, a run of a Pipefill before the marker) is never swept.
//
// Why this is enough: only an account that can write in a folder can put the
// marker there, and on every server Pipefill meets that account can already
// delete the folder's entries; a folder reached through a link has the
// target's id, not the one the marker names, and a marker copied from
// another run names that run's folder.

/**
 * The names a scratch folder and its bookkeeping go by. Dotted first (hidden
 * in a listing, as a person would want it); visible where the share refuses
 * names that start with a dot (Samba's veto files of every dot name, common on NAS boxes
 * for macOS litter): `pipefill-scratch-<stamp>-<random>` with its lease and
 * marker visible too, under the same rules (issue 50).
 */
export interface ScratchNames {
  readonly folderPrefix: string;
  /** The marker that proves the folder is a run's. */
  readonly marker: string;
  /** The run's lease: held open while the run lives (scratch.ts). */
  readonly lease: string;
  /** The empty file a clean-up makes and deletes first, to bring out a recycle bin (scratch.ts). */
  readonly probe: string;
}

export const DOTTED_NAMES: ScratchNames = { folderPrefix: '.pipefill-', marker: '.pipefill-run', lease: '.lease', probe: '.recycle-probe' };
export const VISIBLE_NAMES: ScratchNames = {
  folderPrefix: 'pipefill-scratch-',
  marker: 'pipefill-run',
  lease: 'pipefill-lease',
  probe: 'pipefill-recycle-probe',
};

/** A scratch folder's name: `.pipefill-<stamp>-<random>`, or `pipefill-scratch-<stamp>-<random>` on a share that hides nothing. */
export const SCRATCH_FOLDER_NAME = /^(\.pipefill-|pipefill-scratch-)\d{8}T\d{6}-[0-9a-f]{8}$/;

/** The names that go with a scratch folder, by its name or its path on the share (its last component decides). */
export function namesOf(folder: string): ScratchNames {
  return folder.slice(folder.lastIndexOf('/') + 1).startsWith('.') ? DOTTED_NAMES : VISIBLE_NAMES;
}

/** The dotted scheme's marker and lease, the names most of the code and its tests know. */
export const MARKER_NAME = DOTTED_NAMES.marker;
export const LEASE_NAME = DOTTED_NAMES.lease;
/** A marker is a few dozen bytes; anything larger is not one (and is never read whole). */
export const MARKER_MAX_BYTES = 256;
const HEADER = 'Pipefill scratch folder 1';

export interface ScratchMarker {
  /** The folder's own name (its last path component). */
  readonly folder: string;
  /** The server's id of the folder when it was made (FileInternalInformation); 0 where the server gave none. */
  readonly folderId: bigint;
}

export function markerText(marker: ScratchMarker): Buffer {
  if (!SCRATCH_FOLDER_NAME.test(marker.folder)) throw new Error(`Not a scratch folder's name: ${marker.folder}`);
  return Buffer.from(`${HEADER}\n${marker.folder}\n${marker.folderId.toString(16)}\n`, 'ascii');
}

/** The marker a file holds, or undefined for anything else (a server's bytes: checked, never trusted). */
export function parseMarker(bytes: Buffer): ScratchMarker | undefined {
  if (bytes.length > MARKER_MAX_BYTES) return undefined;
  const lines = bytes.toString('latin1').split('\n');
  const [header, folder, id, end, ...rest] = lines;
  if (header !== HEADER || folder === undefined || !SCRATCH_FOLDER_NAME.test(folder) || id === undefined || !/^[0-9a-f]{1,16}$/.test(id)) return undefined;
  if (end !== '' || rest.length > 0) return undefined;
  return { folder, folderId: BigInt(`0x${id}`) };
}

/**
 * Whether a marker read from the folder `name` (as its parent lists it),
 * whose listing calls it `listedId`, proves the folder is the run's that
 * wrote it. A server that gave no id when the folder was made (0) cannot be
 * held to one; the name still must match.
 */
export function markerProves(marker: ScratchMarker | undefined, name: string, listedId: bigint | undefined): boolean {
  if (!marker || marker.folder !== name) return false;
  return marker.folderId === 0n || marker.folderId === listedId;
}
