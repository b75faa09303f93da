// A private Samba server for tests, benchmarks and the WAN lab: smbd from
// Debian's samba package with its own smb.conf, state directories, port and
// test login, started and stopped by PID (its whole process group).
//
// The login `pipefill` is mapped through a username map onto an account that
// exists: `nobody` when root starts the server, else the person's own (smbd
// then serves the share as them, with no setuid), so no system user is ever
// created on the machine and the demo share needs no root.

import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { accessSync, chmodSync, constants, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, Socket } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join, relative } from 'node:path';
import { killProcessesOfConfig, killProcessesOfConfigAndWait } from './config-processes.js';

export interface SambaOptions {
  /** `smb2 max credits` (Samba's default is 8192). */
  readonly maxCredits?: number;
  /** `socket options`, e.g. `SO_RCVBUF=65536` to pin the server's TCP window. */
  readonly socketOptions?: string;
  /** Address to listen on: loopback, or an address inside a lab namespace. */
  readonly address?: string;
  /** Port to listen on; default a free one (445 inside a lab namespace). */
  readonly port?: number;
  /** Run smbd through this prefix, e.g. `ip netns exec <ns>`. */
  readonly commandPrefix?: readonly string[];
  /** Where the writable share lives (a tmpfs mount in the lab). Default: under the server's own folder. */
  readonly sharePath?: string;
  /** Extra [global] lines. */
  readonly globals?: Readonly<Record<string, string>>;
  /** Extra lines for the writable [share] (e.g. `smb encrypt = required` on that share alone). */
  readonly shareOptions?: Readonly<Record<string, string>>;
  /** Leave smbd running when this process exits (the lab's `up`); stop it later by PID. */
  readonly detach?: boolean;
  /**
   * Listen on every address instead of only `address`: for a namespace of
   * its own, where smbd does not take the point-to-point TUN device as an
   * interface of `interfaces = ...`.
   */
  readonly bindAll?: boolean;
}

export interface SambaShare {
  readonly host: string;
  readonly port: number;
  readonly share: string;
}

export const SAMBA_USER = 'pipefill';

/**
 * A standalone server never asks a winbindd: Samba's client library finds one
 * at its built-in path (/run/samba/winbindd; the `winbindd socket directory`
 * setting does not move it), where a Samba AD DC's winbindd (the tests' own, or
 * any other on the machine) answered this server's account lookups, and every
 * NTLM logon to it failed (NT_STATUS_LOGON_FAILURE, 40 of 40 smbclient logons
 * while the domain fixture ran). `_NO_WINBINDD=1` is Samba's own switch for a
 * process that must not ask one (winbindd sets it for itself).
 */
const NO_WINBINDD = { _NO_WINBINDD: '1' } as const;
/** The account smbd serves the login as: `nobody` under root; a server started by anyone else can only be them. */
const unixAccount = (): string => (process.getuid?.() === 0 ? 'nobody' : userInfo().username);
const START_TIMEOUT_MS = 15_000;

/**
 * Where a private server keeps its share and state: in memory (/dev/shm)
 * where the system has it, else the temp directory. Why: the share is a
 * fixture, and a fixture's disk must not be what the tests measure. On the
 * project's CI machines (ext4 on a virtual disk) new file data went to the
 * page cache at 350-385 MB/s, and at 4 GB/s for a while after files were
 * deleted: two 256 MiB writes in one assessment then ran 0.5x to 2x of each
 * other for no reason in the copies. tmpfs took the same data at 2.2-2.3
 * GB/s every time (dd, 256 MiB new files, 2026-11-25).
 */
function serverRootParent(): string {
  const memory = '/dev/shm';
  try {
    if (process.platform === 'linux' && statSync(memory).isDirectory()) {
      accessSync(memory, constants.W_OK);
      return memory;
    }
  } catch {
    // No usable /dev/shm: the temp directory serves.
  }
  return tmpdir();
}

export function sambaAvailable(): boolean {
  return ['/usr/sbin/smbd', '/usr/bin/pdbedit'].every((path) => existsSync(path));
}

/** A port the kernel reports free on `address` right now. */
export function freePort(address = '127.0.0.1'): Promise<number> {
  return bindAndRelease(0, address);
}

/**
 * `preferred` when it is free on `address` now (so a server comes back at the
 * same address run after run), else any free port.
 */
export async function preferredOrFreePort(preferred: number, address = '127.0.0.1'): Promise<number> {
  try {
    return await bindAndRelease(preferred, address);
  } catch {
    return freePort(address);
  }
}

function bindAndRelease(port: number, address: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(port, address, () => {
      const info = server.address();
      const port = typeof info === 'object' && info ? info.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Whether something accepts a TCP connection on host:port (half a second at most). */
export function canConnect(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = new Socket();
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(500, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
    socket.connect(port, host);
  });
}

function smbConf(root: string, port: number, address: string, sharePath: string, options: SambaOptions): string {
  const state = join(root, 'state');
  const globals: Record<string, string> = {
    'server role': 'standalone server',
    'smb ports': String(port),
    ...(options.bindAll ? { 'bind interfaces only': 'no' } : { interfaces: address, 'bind interfaces only': 'yes' }),
    'private dir': join(state, 'private'),
    'lock directory': join(state, 'lock'),
    'state directory': join(state, 'state'),
    'cache directory': join(state, 'cache'),
    'pid directory': join(state, 'pid'),
    'ncalrpc dir': join(state, 'ncalrpc'),
    'passdb backend': `tdbsam:${join(state, 'private', 'passdb.tdb')}`,
    'username map': join(root, 'usermap'),
    'log file': join(root, 'log.%m'),
    'log level': '1',
    'disable netbios': 'yes',
    'load printers': 'no',
    printing: 'bsd',
    'printcap name': '/dev/null',
    'disable spoolss': 'yes',
    'server min protocol': 'SMB2_02',
    'smb2 max credits': String(options.maxCredits ?? 8192),
    // Tests and benchmarks measure the network path, not a sync to disk.
    'strict sync': 'no',
    ...(options.socketOptions ? { 'socket options': options.socketOptions } : {}),
    ...options.globals,
  };
  const lines = ['[global]', ...Object.entries(globals).map(([key, value]) => `  ${key} = ${value}`)];
  lines.push(
    '[share]',
    `  path = ${sharePath}`,
    '  read only = no',
    '  create mask = 0666',
    '  directory mask = 0777',
    ...Object.entries(options.shareOptions ?? {}).map(([key, value]) => `  ${key} = ${value}`),
  );
  lines.push('[readonly]', `  path = ${join(root, 'readonly')}`, '  read only = yes');
  return `${lines.join('\n')}\n`;
}

export class SambaServer {
  private process: ChildProcess | undefined;

  private constructor(
    readonly root: string,
    readonly configFile: string,
    readonly address: string,
    readonly port: number,
    readonly sharePath: string,
    readonly password: string,
    private readonly options: SambaOptions,
  ) {}

  static async start(options: SambaOptions = {}): Promise<SambaServer> {
    if (!sambaAvailable()) throw new Error("smbd is not installed: `npm test` installs Debian's samba package (apt-get install samba smbclient).");
    const address = options.address ?? '127.0.0.1';
    const root = mkdtempSync(join(serverRootParent(), 'pipefill-samba-'));
    const sharePathGiven = options.sharePath !== undefined && existsSync(options.sharePath);
    try {
      // mkdtemp makes it 0700; smbd serves the share as `nobody`, who must pass through.
      chmodSync(root, 0o755);
      for (const dir of ['private', 'lock', 'state', 'cache', 'pid', 'ncalrpc']) mkdirSync(join(root, 'state', dir), { recursive: true });
      const sharePath = options.sharePath ?? join(root, 'share');
      mkdirSync(sharePath, { recursive: true });
      mkdirSync(join(root, 'readonly'));
      // The share is written by `nobody`; the folder is Pipefill's own, made for this server.
      chmodSync(sharePath, 0o777);
      writeFileSync(join(root, 'readonly', 'existing.txt'), 'a file the test login may read but not change\n');
      const account = unixAccount();
      writeFileSync(join(root, 'usermap'), `${account} = ${SAMBA_USER}\n`);
      const port = options.port ?? (options.commandPrefix ? 445 : await freePort(address));
      const configFile = join(root, 'smb.conf');
      writeFileSync(configFile, smbConf(root, port, address, sharePath, options));
      const password = randomBytes(9).toString('base64url');
      // pdbedit writes this server's own password database directly, as any user who owns it may; smbpasswd run
      // by anyone but root only asks a running server to change that user's password (and printed its usage).
      const added = spawnSync('/usr/bin/pdbedit', [`--configfile=${configFile}`, '-a', '-u', account, '-t'], {
        input: `${password}\n${password}\n`,
        encoding: 'utf8',
      });
      if (added.status !== 0) {
        const why = `${added.stderr}\n${added.stdout}`.split('\n').find((line) => line.trim() !== '') ?? `exit ${String(added.status)}`;
        throw new Error(`pdbedit could not add the share's login for ${account}: ${why.trim()}`);
      }
      const server = new SambaServer(root, configFile, address, port, sharePath, password, options);
      await server.launch();
      return server;
    } catch (error) {
      rmSync(root, { recursive: true, force: true });
      // A share folder made here for the caller goes too; one that existed before stays.
      if (options.sharePath !== undefined && !sharePathGiven) rmSync(options.sharePath, { recursive: true, force: true });
      throw error;
    }
  }

  get share(): SambaShare {
    return { host: this.address, port: this.port, share: 'share' };
  }

  get readOnlyShare(): SambaShare {
    return { host: this.address, port: this.port, share: 'readonly' };
  }

  get credentials(): { user: string; password: string } {
    return { user: SAMBA_USER, password: this.password };
  }

  get pid(): number | undefined {
    return this.process?.pid;
  }

  private async launch(): Promise<void> {
    const prefix = this.options.commandPrefix ?? [];
    const [command, ...args] = [...prefix, '/usr/sbin/smbd', '--foreground', '--no-process-group', `--configfile=${this.configFile}`, '--debug-stdout', '-d0'];
    if (!command) throw new Error('No command to start smbd.');
    // A process group of its own, so stop() reaches the per-client children too.
    const child = spawn(command, args, {
      detached: true,
      stdio: ['ignore', 'ignore', this.options.detach ? 'ignore' : 'pipe'],
      env: { ...process.env, ...NO_WINBINDD },
    });
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    // smbd that cannot be run at all (not executable for this user, say) fails here, not as an uncaught error event.
    let failedToRun: Error | undefined;
    child.once('error', (error) => (failedToRun = error));
    if (this.options.detach) child.unref();
    this.process = child;
    const deadline = Date.now() + START_TIMEOUT_MS;
    // Poll until smbd accepts connections: at most START_TIMEOUT_MS / 100 tries.
    while (Date.now() < deadline) {
      if (failedToRun) {
        this.process = undefined;
        throw new Error(`smbd could not be run (${failedToRun.message})`);
      }
      if (child.exitCode !== null) throw new Error(`smbd exited at start (${child.exitCode}): ${stderr.trim()}`);
      if (!this.options.commandPrefix && (await canConnect(this.address, this.port))) return;
      if (this.options.commandPrefix && this.listeningInNamespace()) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    this.kill();
    throw new Error(`smbd did not listen on ${this.address}:${this.port} within ${START_TIMEOUT_MS / 1000} s: ${stderr.trim()}`);
  }

  private listeningInNamespace(): boolean {
    const prefix = this.options.commandPrefix ?? [];
    const [command, ...args] = [...prefix, 'ss', '-ltnH', `sport = :${this.port}`];
    if (!command) return false;
    const probe = spawnSync(command, args, { encoding: 'utf8' });
    return probe.status === 0 && probe.stdout.trim() !== '';
  }

  /** Kills smbd and every child at once (SIGKILL), as a crash would, and the helpers it started outside its group. */
  kill(): void {
    if (this.process?.pid === undefined) return;
    this.killGroup();
    killProcessesOfConfig(this.configFile);
  }

  /** SIGKILLs smbd's process group (its forked children), not the helpers that left it. */
  private killGroup(): void {
    const pid = this.process?.pid;
    if (pid === undefined) return;
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
    this.process = undefined;
  }

  /** Kills smbd at once and removes its folder, synchronously: for a process on its way out. */
  discard(): void {
    this.kill();
    rmSync(this.root, { recursive: true, force: true });
  }

  /** Starts smbd again on the same port and state (after kill()). */
  async restart(): Promise<void> {
    this.kill();
    await this.launch();
  }

  /** Stops smbd (TERM, then KILL after 3 s) and removes its folder. Safe to call twice. */
  async stop(): Promise<void> {
    const child = this.process;
    if (child?.pid !== undefined && child.exitCode === null) {
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      try {
        process.kill(-child.pid, 'SIGTERM');
      } catch {
        // Already gone.
      }
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 3_000))]);
      this.killGroup();
    }
    // The helpers outside the group, scanned for until none is left.
    await killProcessesOfConfigAndWait(this.configFile);
    this.process = undefined;
    rmSync(this.root, { recursive: true, force: true });
  }

  /** Every file and folder under the writable share, relative to it: the test for "no stray files". */
  shareContents(): string[] {
    return treeContents(this.sharePath);
  }
}

/** Every file and folder under `root`, relative to it, sorted (16 levels at most): what a test server's share holds. */
export function treeContents(root: string): string[] {
  const found: string[] = [];
  const walk = (dir: string, depth: number) => {
    if (depth > 16) return;
    for (const entry of readdirSync(dir)) {
      const path = join(dir, entry);
      found.push(relative(root, path));
      if (statSync(path).isDirectory()) walk(path, depth + 1);
    }
  };
  walk(root, 0);
  return found.sort();
}
