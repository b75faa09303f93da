// SMB servers nobody on the project wrote, from PyPI, for the integration
// tests: impacket's smbserver (NTLM, SMB 2.x/3.0, no share modes) and
// quicksand-smb (a pure-Python SMB3 server for VM folder mounts: guest only,
// no signing). Installed into a venv of the project's own (pinned versions,
// under .pipefill-tmp/, git-ignored), each started on a free loopback port
// with a share folder of its own, and stopped by PID (its process group).

import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { packageRoot } from '../platform/package-root.js';
import { canConnect, freePort, treeContents } from './samba.js';

/**
 * The versions the tests were written against: the servers, and smbprotocol, a client whose copies
 * `pipefill analyze` is tested on (impacket's client comes with its server).
 */
export const PYPI_SERVER_PACKAGES = ['impacket==0.13.1', 'quicksand-smb==0.5.3', 'smbprotocol==1.15.0'] as const;
const START_TIMEOUT_MS = 20_000;

/** quicksand serves one connection over a socket; this listener gives each connection a thread of its own. */
const QUICKSAND_LISTENER = `
import socket, sys, threading
from quicksand_smb import SMBConfig, ShareConfig, serve_socket
port, path = int(sys.argv[1]), sys.argv[2]
config = SMBConfig(shares={'share': ShareConfig(host_path=path)})
listener = socket.create_server(('127.0.0.1', port))
while True:
    connection, _ = listener.accept()
    threading.Thread(target=serve_socket, args=(connection, config), daemon=True).start()
`;

/** The venv's python, made (and the packages installed) on first use. */
export function pypiServersPython(): string {
  const venv = join(packageRoot(), '.pipefill-tmp', 'pypi-servers');
  const python = join(venv, 'bin', 'python');
  const stamp = join(venv, 'pipefill-packages');
  const wanted = `${PYPI_SERVER_PACKAGES.join('\n')}\n`;
  if (existsSync(python) && existsSync(stamp) && readFileSync(stamp, 'utf8') === wanted) return python;
  rmSync(venv, { recursive: true, force: true });
  mkdirSync(join(packageRoot(), '.pipefill-tmp'), { recursive: true });
  const steps: [string, string[]][] = [
    ['python3', ['-m', 'venv', venv]],
    [python, ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', ...PYPI_SERVER_PACKAGES]],
  ];
  for (const [command, args] of steps) {
    const result = spawnSync(command, args, { encoding: 'utf8', timeout: 300_000 });
    if (result.status !== 0)
      throw new Error(`${command} ${args.slice(0, 3).join(' ')} failed: ${(result.stderr || result.stdout || String(result.error)).slice(-1500)}`);
  }
  writeFileSync(stamp, wanted);
  return python;
}

export class PypiServer {
  private constructor(
    readonly kind: 'impacket' | 'quicksand',
    private readonly root: string,
    readonly port: number,
    readonly credentials: { user: string; password: string },
    private process: ChildProcess | undefined,
  ) {}

  /** impacket's smbserver with SMB2 support and one NTLM user. */
  static async impacket(): Promise<PypiServer> {
    const python = pypiServersPython();
    const credentials = { user: 'pipefill', password: `Pf-${randomBytes(9).toString('base64url')}` };
    return PypiServer.launch('impacket', credentials, (root, port) => [
      python,
      join(python, '..', 'smbserver.py'),
      '-smb2support',
      '-ip',
      '127.0.0.1',
      '-port',
      String(port),
      '-username',
      credentials.user,
      '-password',
      credentials.password,
      'share',
      join(root, 'share'),
    ]);
  }

  /** quicksand-smb: every login is a guest. */
  static async quicksand(): Promise<PypiServer> {
    const python = pypiServersPython();
    return PypiServer.launch('quicksand', { user: 'anyone', password: 'anything' }, (root, port) => {
      writeFileSync(join(root, 'listener.py'), QUICKSAND_LISTENER);
      return [python, join(root, 'listener.py'), String(port), join(root, 'share')];
    });
  }

  private static async launch(
    kind: PypiServer['kind'],
    credentials: { user: string; password: string },
    command: (root: string, port: number) => string[],
  ): Promise<PypiServer> {
    const root = mkdtempSync(join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), `pipefill-${kind}-`));
    mkdirSync(join(root, 'share'));
    const port = await freePort();
    const [program, ...args] = command(root, port);
    if (!program) throw new Error('no command');
    const child = spawn(program, args, { detached: true, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
    const server = new PypiServer(kind, root, port, credentials, child);
    const deadline = Date.now() + START_TIMEOUT_MS;
    // Polled every 100 ms until the server accepts connections.
    while (Date.now() < deadline) {
      if (child.exitCode !== null) {
        await server.stop();
        throw new Error(`${kind} exited at start (${child.exitCode}): ${stderr.trim()}`);
      }
      if (await canConnect('127.0.0.1', port)) return server;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await server.stop();
    throw new Error(`${kind} did not listen within ${START_TIMEOUT_MS / 1000} s: ${stderr.trim()}`);
  }

  get share(): { host: string; port: number; share: string } {
    return { host: '127.0.0.1', port: this.port, share: 'share' };
  }

  get sharePath(): string {
    return join(this.root, 'share');
  }

  /** Every file and folder under the share, relative to it. */
  shareContents(): string[] {
    return treeContents(this.sharePath);
  }

  async stop(): Promise<void> {
    const child = this.process;
    this.process = undefined;
    if (child?.pid !== undefined && child.exitCode === null) {
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 3_000))]);
    }
    rmSync(this.root, { recursive: true, force: true });
  }
}
