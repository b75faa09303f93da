// A private Active Directory domain for tests: Samba's AD domain controller
// (Debian's samba-ad-dc), provisioned with `samba-tool domain provision` into
// a folder of its own, with its own realm, KDC and SMB ports on loopback and
// a file share, started and stopped by PID (its whole process group). No
// system file is touched: clients find the KDC through the krb5.conf this
// writes (KRB5_CONFIG), and reach the server's name through an address
// given to them (the share's `address`, smbclient's -I).

import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { canConnect, freePort } from './samba.js';

export const DOMAIN_REALM = 'PIPEFILL.TEST';
export const DOMAIN_NETBIOS = 'PIPEFILL';
/** The domain controller's name: the share is //pfdc.pipefill.test/share. */
export const DOMAIN_HOST = 'pfdc.pipefill.test';
const DOMAIN_USER = 'alice';
const START_TIMEOUT_MS = 30_000;
const LIBFAKETIME = '/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1';

export interface DomainStartOptions {
  /** `ntlm auth` (default `disabled`: a domain that takes Kerberos only). */
  readonly ntlm?: 'disabled' | 'ntlmv2-only';
  /** Run the file server (smbd alone) with its clock this far off (libfaketime's syntax, e.g. `+1h`). */
  readonly fileServerClock?: string;
}

/** Why this machine cannot run the domain, or undefined. */
export function sambaDomainMissing(): string | undefined {
  if (!existsSync('/usr/sbin/samba')) return "samba's AD DC is not installed (apt-get install samba-ad-dc)";
  if (!existsSync('/usr/share/samba/setup/ad-schema')) return 'the AD schema is not installed (apt-get install samba-ad-provision)';
  if (!existsSync('/usr/bin/kinit')) return 'kinit is not installed (apt-get install krb5-user)';
  return undefined;
}

function run(command: string, args: readonly string[], env: NodeJS.ProcessEnv = process.env, input?: string): string {
  const result = spawnSync(command, args, { encoding: 'utf8', env, timeout: 120_000, ...(input === undefined ? {} : { input }) });
  if (result.status !== 0)
    throw new Error(`${command} ${args.slice(0, 3).join(' ')} failed (${result.status ?? result.signal}): ${(result.stderr || result.stdout).slice(-2000)}`);
  return result.stdout;
}

export class SambaDomain {
  private process: ChildProcess | undefined;

  private constructor(
    readonly root: string,
    readonly smbPort: number,
    readonly kdcPort: number,
    private readonly kpasswdPort: number,
    readonly password: string,
  ) {}

  /** Provisions the domain (a few seconds of samba-tool), adds the test user, and starts the DC. */
  static async start(options: DomainStartOptions = {}): Promise<SambaDomain> {
    const missing = sambaDomainMissing();
    if (missing) throw new Error(missing);
    const root = mkdtempSync(join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'pipefill-domain-'));
    try {
      chmodSync(root, 0o755);
      const [smbPort, kdcPort, kpasswdPort] = [await freePort(), await freePort(), await freePort()];
      const password = `Pf-${randomBytes(9).toString('base64url')}1!`;
      const domain = new SambaDomain(root, smbPort, kdcPort, kpasswdPort, password);
      const adminPassword = `Adm-${randomBytes(9).toString('base64url')}1!`;
      run('samba-tool', [
        'domain',
        'provision',
        `--realm=${DOMAIN_REALM}`,
        `--domain=${DOMAIN_NETBIOS}`,
        '--server-role=dc',
        '--dns-backend=NONE',
        `--adminpass=${adminPassword}`,
        `--targetdir=${join(root, 'dc')}`,
        '--host-name=pfdc',
        '--option=interfaces=127.0.0.1',
        '--option=bind interfaces only=yes',
      ]);
      mkdirSync(join(root, 'share'));
      chmodSync(join(root, 'share'), 0o777);
      mkdirSync(join(root, 'run'));
      mkdirSync(join(root, 'log'));
      domain.writeConfig(options);
      run('samba-tool', ['user', 'create', DOMAIN_USER, password, '-s', domain.configFile]);
      writeFileSync(domain.krb5Conf, domain.krb5ConfText());
      await domain.launch(options);
      return domain;
    } catch (error) {
      rmSync(root, { recursive: true, force: true });
      throw error;
    }
  }

  get configFile(): string {
    return join(this.root, 'smb.conf');
  }

  /** The krb5.conf a client points KRB5_CONFIG at: this realm, this KDC's port, no DNS. */
  get krb5Conf(): string {
    return join(this.root, 'krb5.conf');
  }

  /** The share, by the server's name, and the address that name is reached at. */
  get share(): { share: string; address: string } {
    return { share: `//${DOMAIN_HOST}:${this.smbPort}/share`, address: '127.0.0.1' };
  }

  get user(): { name: string; principal: string; password: string } {
    return { name: DOMAIN_USER, principal: `${DOMAIN_USER}@${DOMAIN_REALM}`, password: this.password };
  }

  /** Gets a ticket into `cache` with kinit (`lifetime` in kinit's syntax, e.g. `5s`). */
  kinit(cache: string, lifetime?: string): void {
    run(
      'kinit',
      [...(lifetime ? ['-l', lifetime] : []), this.user.principal],
      { ...process.env, KRB5_CONFIG: this.krb5Conf, KRB5CCNAME: cache },
      `${this.password}\n`,
    );
  }

  /** Stops the DC and starts it again with other options (same domain, same ports). */
  async restart(options: DomainStartOptions): Promise<void> {
    await this.stopProcess();
    this.writeConfig(options);
    await this.launch(options);
  }

  async stop(): Promise<void> {
    await this.stopProcess();
    rmSync(this.root, { recursive: true, force: true });
  }

  private krb5ConfText(): string {
    return [
      '[libdefaults]',
      `\tdefault_realm = ${DOMAIN_REALM}`,
      '\tdns_lookup_kdc = false',
      '\tdns_lookup_realm = false',
      '\tdns_canonicalize_hostname = false',
      '\trdns = false',
      '[realms]',
      `\t${DOMAIN_REALM} = {`,
      `\t\tkdc = 127.0.0.1:${this.kdcPort}`,
      '\t}',
      '[domain_realm]',
      `\t.pipefill.test = ${DOMAIN_REALM}`,
      '',
    ].join('\n');
  }

  private writeConfig(options: DomainStartOptions): void {
    const dc = join(this.root, 'dc');
    const lines = [
      '[global]',
      '\tnetbios name = PFDC',
      `\trealm = ${DOMAIN_REALM}`,
      `\tworkgroup = ${DOMAIN_NETBIOS}`,
      '\tserver role = active directory domain controller',
      `\tprivate dir = ${join(dc, 'private')}`,
      `\tstate directory = ${join(dc, 'state')}`,
      `\tlock directory = ${dc}`,
      `\tcache directory = ${join(dc, 'cache')}`,
      `\tbinddns dir = ${join(dc, 'bind-dns')}`,
      `\tpid directory = ${join(this.root, 'run')}`,
      `\tncalrpc dir = ${join(this.root, 'run', 'ncalrpc')}`,
      `\tlog file = ${join(this.root, 'log', 'log.%m')}`,
      '\tinterfaces = 127.0.0.1',
      '\tbind interfaces only = yes',
      // The file server, the KDC, and winbindd (which maps the domain's users to IDs for smbd); nothing else listens.
      '\tserver services = s3fs, kdc, winbindd',
      `\tsmb ports = ${this.smbPort}`,
      `\tkrb5 port = ${this.kdcPort}`,
      `\tkpasswd port = ${this.kpasswdPort}`,
      `\tntlm auth = ${options.ntlm ?? 'disabled'}`,
      '\tlog level = 1',
      '[share]',
      `\tpath = ${join(this.root, 'share')}`,
      '\tread only = no',
      '',
    ];
    writeFileSync(this.configFile, lines.join('\n'));
  }

  private async launch(options: DomainStartOptions): Promise<void> {
    rmSync(join(this.root, 'run', 'samba.pid'), { force: true });
    const env: NodeJS.ProcessEnv = { ...process.env };
    if (options.fileServerClock !== undefined) {
      if (!existsSync(LIBFAKETIME)) throw new Error('libfaketime is not installed (apt-get install faketime)');
      // smbd alone runs off the clock: the KDC keeps the true time, as when a file server's clock drifts.
      Object.assign(env, { LD_PRELOAD: LIBFAKETIME, FAKETIME: options.fileServerClock, FAKETIME_ONLY_CMDS: 'smbd' });
    }
    const child = spawn('/usr/sbin/samba', ['--interactive', '--model=single', '-s', this.configFile], {
      detached: true,
      stdio: ['ignore', 'ignore', 'pipe'],
      env,
    });
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
    this.process = child;
    const deadline = Date.now() + START_TIMEOUT_MS;
    // Polled every 200 ms until both the KDC and smbd accept connections.
    while (Date.now() < deadline) {
      if (child.exitCode !== null) throw new Error(`samba exited at start (${child.exitCode}): ${stderr.trim()}`);
      if ((await canConnect('127.0.0.1', this.kdcPort)) && (await canConnect('127.0.0.1', this.smbPort))) return;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    await this.stopProcess();
    throw new Error(`samba did not listen within ${START_TIMEOUT_MS / 1000} s: ${stderr.trim()}`);
  }

  private async stopProcess(): Promise<void> {
    const child = this.process;
    this.process = undefined;
    if (child?.pid === undefined || child.exitCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {
      return;
    }
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5_000))]);
    // libfaketime's shared memory is the first process's (its children share it), and a killed process leaves it.
    for (const name of [`faketime_shm_${child.pid}`, `sem.faketime_sem_${child.pid}`]) rmSync(join('/dev/shm', name), { force: true });
  }
}
