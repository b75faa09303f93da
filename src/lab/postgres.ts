// A private PostgreSQL server for the history store's tests: Debian's
// postgres binaries, a data directory of its own under a fresh temporary
// folder, a free port on loopback, trust login for one test role, and a stop
// by PID that removes every file it made. PostgreSQL will not run as root; as
// root, the server runs as the `postgres` account the Debian package made,
// which owns only the folder made for it.

import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { userInfo, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Socket } from 'node:net';
import { freePort } from './samba.js';

const START_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 15_000;
const TEST_ROLE = 'pipefill';

/** The newest PostgreSQL server installed from Debian's packages, if any. */
export function postgresBinDir(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((name) => /^\d+$/.test(name) && existsSync(join(root, name, 'bin', 'postgres')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] === undefined ? undefined : join(root, versions[0], 'bin');
}

function account(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const found = spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' });
  const gid = spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' });
  if (found.status !== 0 || gid.status !== 0) throw new Error('PostgreSQL cannot run as root and there is no postgres account to run it as.');
  return { uid: Number(found.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

function connects(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = new Socket();
    socket.setTimeout(500);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
    socket.connect(port, '127.0.0.1');
  });
}

export class PostgresServer {
  private constructor(
    private readonly child: ChildProcess,
    private readonly folder: string,
    readonly port: number,
    private readonly bin: string,
    private readonly owner: { uid: number; gid: number } | undefined,
  ) {}

  /** A connection address for a database of this server (created by createDatabase, or `postgres`). */
  url(database = 'postgres'): string {
    return `postgres://${TEST_ROLE}@127.0.0.1:${this.port}/${database}`;
  }

  /** A folder on a tmpfs of `smallDiskBytes` that only the server sees (its own mount namespace), for a tablespace that fills. */
  smallDisk: string | undefined;

  /**
   * `smallDiskBytes`: the server runs in a mount namespace of its own with a
   * tmpfs of that size at `smallDisk` (Linux, root: unshare and setpriv from
   * util-linux); it goes when the server does.
   */
  static async start(options: { readonly smallDiskBytes?: number } = {}): Promise<PostgresServer> {
    const bin = postgresBinDir();
    if (!bin) throw new Error("Debian's postgresql package is not installed (/usr/lib/postgresql/*/bin/postgres).");
    const owner = account();
    const folder = mkdtempSync(join(tmpdir(), 'pipefill-pg-'));
    if (owner) chownSync(folder, owner.uid, owner.gid);
    const data = join(folder, 'data');
    const asOwner = owner ? { uid: owner.uid, gid: owner.gid } : {};
    const init = spawnSync(join(bin, 'initdb'), ['-D', data, '-U', TEST_ROLE, '--auth=trust', '--encoding=UTF8', '--no-instructions'], {
      encoding: 'utf8',
      cwd: folder,
      timeout: 120_000,
      ...asOwner,
    });
    if (init.status !== 0) {
      rmSync(folder, { recursive: true, force: true });
      throw new Error(`initdb failed: ${init.stderr || init.stdout || init.error?.message}`);
    }
    const port = await freePort();
    const serverArgs = ['-D', data, '-p', String(port), '-k', folder, '-c', 'listen_addresses=127.0.0.1', '-c', 'fsync=off', '-c', 'max_connections=40'];
    let smallDisk: string | undefined;
    let child: ChildProcess;
    if (options.smallDiskBytes !== undefined) {
      if (!owner) throw new Error('A small disk for PostgreSQL needs root (a tmpfs in a mount namespace of its own).');
      smallDisk = join(folder, 'small');
      mkdirSync(smallDisk);
      chownSync(smallDisk, owner.uid, owner.gid);
      const size = Math.max(64 * 1024, Math.floor(options.smallDiskBytes));
      // unshare execs (no fork) and so do sh and setpriv: the PID is the postmaster's.
      const script = `mount -t tmpfs -o size=${size},mode=0700,uid=${owner.uid},gid=${owner.gid} tmpfs "$0" || exit 90; exec setpriv --reuid=${owner.uid} --regid=${owner.gid} --clear-groups -- "$@"`;
      child = spawn('unshare', ['--mount', '--propagation', 'private', 'sh', '-c', script, smallDisk, join(bin, 'postgres'), ...serverArgs], {
        cwd: folder,
        stdio: ['ignore', 'ignore', 'pipe'],
      });
    } else {
      child = spawn(join(bin, 'postgres'), serverArgs, { cwd: folder, stdio: ['ignore', 'ignore', 'pipe'], ...asOwner });
    }
    let log = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      log = (log + chunk.toString()).slice(-4000);
    });
    const server = new PostgresServer(child, folder, port, bin, owner);
    server.smallDisk = smallDisk;
    const deadline = Date.now() + START_TIMEOUT_MS;
    // Bounded: START_TIMEOUT_MS in 100 ms steps.
    while (Date.now() < deadline && child.exitCode === null) {
      if (await connects(port)) {
        const ready = spawnSync(join(bin, 'pg_isready'), ['-h', '127.0.0.1', '-p', String(port), '-U', TEST_ROLE], { encoding: 'utf8' });
        if (ready.status === 0) return server;
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await server.stop();
    throw new Error(`PostgreSQL did not start on port ${port}: ${log}`);
  }

  /** A new, empty database; returns its address. */
  createDatabase(name: string): string {
    if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`not a database name: ${name}`);
    const made = spawnSync(
      join(this.bin, 'psql'),
      ['-h', '127.0.0.1', '-p', String(this.port), '-U', TEST_ROLE, '-d', 'postgres', '-v', 'ON_ERROR_STOP=1', '-c', `CREATE DATABASE ${name}`],
      { encoding: 'utf8', timeout: 30_000 },
    );
    if (made.status !== 0) throw new Error(`CREATE DATABASE ${name} failed: ${made.stderr}`);
    return this.url(name);
  }

  /** Runs SQL as the test role (the tests' way to set up a store a certain way). */
  psql(database: string, sql: string): string {
    const ran = spawnSync(
      join(this.bin, 'psql'),
      ['-h', '127.0.0.1', '-p', String(this.port), '-U', TEST_ROLE, '-d', database, '-v', 'ON_ERROR_STOP=1', '-At', '-c', sql],
      { encoding: 'utf8', timeout: 30_000 },
    );
    if (ran.status !== 0) throw new Error(`psql failed: ${ran.stderr}`);
    return ran.stdout;
  }

  async stop(): Promise<void> {
    if (this.child.exitCode === null && this.child.pid !== undefined) {
      const exited = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
      // SIGINT: PostgreSQL's fast shutdown (ends sessions, writes a checkpoint).
      this.child.kill('SIGINT');
      const late = setTimeout(() => this.child.kill('SIGKILL'), STOP_TIMEOUT_MS);
      await exited;
      clearTimeout(late);
    }
    rmSync(this.folder, { recursive: true, force: true });
  }

  get runsAs(): string {
    return this.owner ? 'postgres' : userInfo().username;
  }
}
