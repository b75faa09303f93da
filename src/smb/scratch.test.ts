import { describe, expect, it } from 'vitest';
import { SmbError } from './errors.js';
import { isPipefillEntry, removeStaleScratch, scratchPath } from './scratch.js';

/** The share's root: where these sessions' scratch folders are (no folder below the share). */
const SHARE_ROOT = { host: 'fs01', port: 445, share: 'projects' };
import type { SmbSession } from './session.js';
import { Status } from './protocol.js';
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
    ] as const)
      expect(isPipefillEntry(depth, name, directory), `${depth} ${name}`).toBe(false);
  });
});

describe('the sweep of old scratch folders (best-effort)', () => {
  const now = new Date('2026-11-26T12:00:00Z');
  const oldOne = '.pipefill-20261120T120000-0000aaaa';
  const orphan = '.pipefill-20261126T110000-0000bbbb';
  const stuck = '.pipefill-20261120T120000-0000cccc';
  /** A share whose root holds three of Pipefill's folders: one the server will not delete, one orphan whose lease it calls STATUS_NO_SUCH_FILE. */
  const share = (failure: SmbError) => {
    const deleted: string[] = [];
    const session = {
      target: SHARE_ROOT,
      listDirectoryWithLinks: async () => ({
        entries: [stuck, oldOne, orphan].map((name) => ({ name, isDirectory: true, isReparsePoint: false })),
        self: 1n,
      }),
      listDirectoryClosing: async () => ({ entries: [], closed: Promise.resolve() }),
      create: async () => {
        throw new SmbError('not-found', 'no such file', '', Status.noSuchFile);
      },
      close: async () => undefined,
      deletePath: async (path: string) => {
        if (path === stuck) throw failure;
        deleted.push(path);
      },
    } as unknown as SmbSession;
    return { session, deleted };
  };

  it('leaves a folder the server will not let go of, and sweeps the rest; a lease the server calls STATUS_NO_SUCH_FILE is an orphan', async () => {
    const { session, deleted } = share(new SmbError('access-denied', 'denied', '', Status.accessDenied));
    expect(await removeStaleScratch(session, { orphansByLease: true }, {}, now)).toEqual([oldOne, orphan]);
    expect(deleted).toEqual([oldOne, orphan]);
  });

  it('stops on a failure that ends the session', async () => {
    const { session } = share(new SmbError('connection-lost', 'gone', ''));
    await expect(removeStaleScratch(session, { orphansByLease: true }, {}, now)).rejects.toThrow('gone');
  });
});

describe('a scratch folder whose `..` names itself', () => {
  it('is swept: the server said nothing of its parent, which is not a link', async () => {
    const name = '.pipefill-20261120T120000-0000dddd';
    const deleted: string[] = [];
    const session = {
      target: SHARE_ROOT,
      listDirectoryWithLinks: async () => ({ entries: [{ name, isDirectory: true, isReparsePoint: false }], self: 1n }),
      // The folder's own listing: `.` and `..` both carry the folder's id.
      listDirectoryClosing: async () => ({
        entries: [{ name: '.lease', isDirectory: false, isReparsePoint: false }],
        self: 7n,
        parent: 7n,
        closed: Promise.resolve(),
      }),
      deletePath: async (path: string) => {
        deleted.push(path);
      },
    } as unknown as SmbSession;
    expect(await removeStaleScratch(session, { orphansByLease: true }, {}, new Date('2026-11-26T12:00:00Z'))).toEqual([name]);
    expect(deleted).toEqual([`${name}/.lease`, name]);
  });
});
