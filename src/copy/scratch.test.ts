import { describe, expect, it } from 'vitest';
import { SmbError } from '../smb/errors.js';
import { isPipefillEntry, removeStaleScratch, scratchPath } from './scratch.js';
import type { SweepRules } from './scratch.js';
import { markerText, MARKER_NAME } from './scratch-marker.js';
import { filetimeSpan } from '../smb/messages.js';

/** The share's root: where these sessions' scratch folders are (no folder below the share). */
const SHARE_ROOT = { host: 'fs01', port: 445, share: 'projects' };
import type { SmbSession } from '../smb/session.js';
import { Status } from '../smb/protocol.js';
import { parseWorkload } from '../model/workloads.js';

describe('scratchPath', () => {
  const root = '.pipefill-20261121T120000-0123abcd';

  it('joins paths inside the scratch folder', () => {
    expect(scratchPath(root, 'target/dir01/file001.xls')).toBe(`${root}/target/dir01/file001.xls`);
    expect(scratchPath(root, './source\\a.bin')).toBe(`${root}/source/a.bin`);
  });

  it.each(['../outside.txt', 'target/../../x', 'C:\\Windows', 'a/../../b'])('refuses %j, which could leave it', (relative) => {
    expect(() => scratchPath(root, relative)).toThrow(SmbError);
  });
});

describe('the layout clean-up may remove', () => {
  it('is exactly what Pipefill makes, at the depth it makes it', () => {
    // Everything a workload lays out fits the layout...
    for (const spec of ['file:8MiB', 'tr3869-dirset']) {
      for (const file of parseWorkload(spec).files) {
        const parts = file.path.split('/');
        parts.forEach((part, index) => expect(isPipefillEntry(index + 1, part, index < parts.length - 1), file.path).toBe(true));
      }
    }
    for (const name of ['source', 'target']) expect(isPipefillEntry(0, name, true)).toBe(true);
    expect(isPipefillEntry(0, '.lease', false)).toBe(true);
    // The hosts' calibration files and each session's warm-up file (server-warm-up.ts).
    for (const name of ['calibration-1.bin', 'warm-up-1.bin', 'warm-up-12.bin']) expect(isPipefillEntry(0, name, false), name).toBe(true);
    // A capacity run's folder, its people's files and the file its latency samples open.
    expect(isPipefillEntry(0, 'capacity', true)).toBe(true);
    for (const name of ['user-01.bin', 'user-64.bin', 'latency.bin']) expect(isPipefillEntry(1, name, false), name).toBe(true);
    // ...and nothing else does.
    for (const [depth, name, directory] of [
      [0, 'notes.txt', false],
      [0, 'source', false],
      [1, 'etc', true],
      [1, 'dir01', false],
      [2, 'file001.doc', true],
      [3, 'file001.doc', false],
      [0, '..', true],
      [0, 'capacity', false],
      [1, 'user-1.bin', false],
      [1, 'user-01.bin', true],
      [2, 'latency.bin', false],
      [0, 'warm-up-1.bin', true],
      [0, 'warm-up-123.bin', false],
      [1, 'warm-up-1.bin', false],
    ] as const)
      expect(isPipefillEntry(depth, name, directory), `${depth} ${name}`).toBe(false);
  });
});

/** FILETIME of a day: the age past which a folder goes where share modes do not hold. */
const DAY = filetimeSpan(24 * 60 * 60 * 1000);
const NOW = 133_000_000_000_000_000n;
const times = (at: bigint) => ({ created: at, written: at, changed: at });
const folderEntry = (name: string, at = NOW) => ({ name, isDirectory: true, isReparsePoint: false, bytes: 0, fileId: 0n, times: times(at) });

interface FakeFolder {
  /** What its marker holds (none: no marker file). */
  readonly marker?: Buffer;
  /** The folder's id in its own listing. */
  readonly id?: bigint;
  /** The server's times of the folder, as the root lists it. */
  readonly at?: bigint;
}

/**
 * A share whose root lists these folders. The marker is read in a compound
 * of CREATE, READ and CLOSE (openRelated): answered here from `marker`. `lease` says what
 * opening a folder's lease for deletion answers.
 */
function fakeShare(folders: Record<string, FakeFolder>, lease: () => Promise<unknown>, deleteFails: (path: string) => SmbError | undefined = () => undefined) {
  const deleted: string[] = [];
  const touched: string[] = [];
  const session = {
    target: SHARE_ROOT,
    listDirectoryWithLinks: async () => ({ entries: Object.entries(folders).map(([name, folder]) => folderEntry(name, folder.at)), self: 1n }),
    listDirectoryClosing: async (path: string) => {
      const folder = folders[path];
      const entries = [
        { name: '.lease', isDirectory: false, isReparsePoint: false, bytes: 0, fileId: 0n, times: times(NOW) },
        { name: 'bandwidth-probe.bin', isDirectory: false, isReparsePoint: false, bytes: 9, fileId: 0n, times: times(NOW) },
        ...(folder?.marker
          ? [{ name: MARKER_NAME, isDirectory: false, isReparsePoint: false, bytes: folder.marker.length, fileId: 0n, times: times(NOW) }]
          : []),
      ];
      return { entries, self: folder?.id ?? 7n, parent: 1n, closed: Promise.resolve() };
    },
    openRelated: async (params: { path: string }) => {
      touched.push(params.path);
      const marker = folders[params.path.replace(`/${MARKER_NAME}`, '')]?.marker ?? Buffer.alloc(0);
      const read = Buffer.alloc(16 + marker.length);
      read.writeUInt8(80, 2);
      read.writeUInt32LE(marker.length, 4);
      marker.copy(read, 16);
      return [Buffer.alloc(88), read].map((body) => ({ header: { status: Status.success }, body }));
    },
    create: async (params: { path: string }) => {
      touched.push(params.path);
      return lease();
    },
    close: async () => undefined,
    deletePath: async (path: string) => {
      const failure = deleteFails(path);
      if (failure) throw failure;
      deleted.push(path);
    },
  } as unknown as SmbSession;
  return { session, deleted, touched };
}

const leaseFree = async () => ({ fileId: Buffer.alloc(16) });
const leaseNotThere = async () => {
  throw new SmbError('not-found', 'no such file', '', Status.noSuchFile);
};
const leaseHeld = async () => {
  throw new SmbError('access-denied', 'in use', '', Status.sharingViolation);
};
const marked = (name: string, id = 7n) => ({ marker: markerText({ folder: name, folderId: id }), id });
const BY_LEASE: SweepRules = { orphansByLease: true, serverNow: NOW };
const BY_AGE: SweepRules = { orphansByLease: false, serverNow: NOW };

describe("the sweep of dead runs' scratch folders (best-effort)", () => {
  const oldOne = '.pipefill-20261120T120000-0000aaaa';
  const orphan = '.pipefill-20261126T110000-0000bbbb';
  const stuck = '.pipefill-20261120T120000-0000cccc';

  it('leaves a folder the server will not let go of, and sweeps the rest; a lease the server calls STATUS_NO_SUCH_FILE is an orphan', async () => {
    const { session, deleted } = fakeShare({ [stuck]: marked(stuck), [oldOne]: marked(oldOne), [orphan]: marked(orphan) }, leaseNotThere, (path) =>
      path === stuck ? new SmbError('access-denied', 'denied', '', Status.accessDenied) : undefined,
    );
    expect(await removeStaleScratch(session, BY_LEASE)).toEqual([oldOne, orphan]);
    // Inside, what Pipefill makes, the marker last; then the folder.
    expect(deleted.filter((path) => path.startsWith(oldOne))).toEqual([
      `${oldOne}/.lease`,
      `${oldOne}/bandwidth-probe.bin`,
      `${oldOne}/${MARKER_NAME}`,
      oldOne,
    ]);
  });

  it('stops on a failure that ends the session', async () => {
    const { session } = fakeShare({ [stuck]: marked(stuck) }, leaseNotThere, () => new SmbError('connection-lost', 'gone', ''));
    await expect(removeStaleScratch(session, BY_LEASE)).rejects.toThrow('gone');
  });

  it("touches nothing inside a folder that does not prove it is a Pipefill run's", async () => {
    const other = '.pipefill-20200101T000000-0000eeee';
    const { session, deleted, touched } = fakeShare(
      {
        // No marker at all (someone else's folder of the name, a link to another folder, a Pipefill before markers).
        [oldOne]: {},
        // A marker copied from another run's folder.
        [orphan]: { marker: markerText({ folder: other, folderId: 7n }), id: 7n },
        // A real marker, but the folder listed is not the one it was written in (a link to that folder).
        [stuck]: { marker: markerText({ folder: stuck, folderId: 99n }), id: 7n },
      },
      leaseFree,
    );
    expect(await removeStaleScratch(session, BY_LEASE)).toEqual([]);
    expect(deleted).toEqual([]);
    // Not even its lease was opened: only the marker was read.
    expect(touched.every((path) => path.endsWith(`/${MARKER_NAME}`))).toBe(true);
  });

  it('never sweeps a folder whose lease a live run holds, however old', async () => {
    const { session, deleted } = fakeShare({ [oldOne]: { ...marked(oldOne), at: NOW - 30n * DAY } }, leaseHeld);
    expect(await removeStaleScratch(session, BY_LEASE)).toEqual([]);
    expect(deleted).toEqual([]);
  });

  it("where leases prove nothing, goes by the server's clock: a day untouched, whatever the name's stamp says", async () => {
    // Stamped in 2026-11-20 by the client's clock, touched an hour ago by the server's: a live run's, on a client whose clock runs late.
    const recent = '.pipefill-20261120T120000-0000abab';
    // Stamped in the future by a client whose clock runs ahead, untouched for two days by the server's.
    const old = '.pipefill-20991231T000000-0000cdcd';
    const { session } = fakeShare({ [recent]: { ...marked(recent), at: NOW - DAY / 24n }, [old]: { ...marked(old), at: NOW - 2n * DAY } }, leaseFree);
    expect(await removeStaleScratch(session, BY_AGE)).toEqual([old]);
  });

  it('sweeps a folder whose `..` names itself: the server said nothing of its parent, which is not a link', async () => {
    const name = '.pipefill-20261120T120000-0000dddd';
    const { session } = fakeShare({ [name]: { ...marked(name), id: 7n } }, leaseNotThere);
    Object.assign(session, {
      listDirectoryClosing: async () => ({
        entries: [{ name: MARKER_NAME, isDirectory: false, isReparsePoint: false, bytes: 60, fileId: 0n, times: times(NOW) }],
        self: 7n,
        parent: 7n,
        closed: Promise.resolve(),
      }),
    });
    expect(await removeStaleScratch(session, BY_LEASE)).toEqual([name]);
  });
});
