// The WAN lab: two network namespaces, "branch" and "datacenter", joined by
// Pipefill's own forwarder (native/wanem) over TUN devices, which adds rate,
// delay, queue, loss and jitter. Real kernel TCP on both sides sees a real
// long fat pipe. Samba and an iperf3 server run inside "datacenter"; a client
// run inside "branch" (ip netns exec) crosses the emulated link.
//
// Every process is recorded in a state file under /run/pipefill-lab, so
// `down` removes a lab by PID from any process, and is safe to run twice.
// Linux and root only. Root writes nothing through a name someone else could
// have planted: the state folder is root's own and 0700 (the state holds the
// lab's Samba password), its files are created exclusively and 0600, and the
// share lives in a folder of an unguessable name (mkdtemp) on tmpfs.

import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, lstatSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { PipefillError } from '../model/errors.js';
import { createExclusive, freshDirectory, openNewLog, privateDirectory, replaceFile } from '../platform/safe-file.js';
import { bdpBytes } from '../model/link.js';
import type { Link } from '../model/link.js';
import { SambaServer, SAMBA_USER } from './samba.js';
import { SERVER_CONGESTION, setRouteCongestion } from './lab-congestion.js';
import { BRANCH_ADDRESS, DATACENTER_ADDRESS, DEVICE, IPERF_PORT, NAMESPACE_PREFIX } from './lab-network.js';
import { alive, forwarderBinary, inNamespace, killGroup, requireLab, run, waitFor } from './lab-system.js';
import type { WireguardTunnel } from './wireguard.js';
import { removeWireguard, wireguardUp } from './wireguard.js';

export const LAB_STATE_DIR = '/run/pipefill-lab';
/** TCP buffer maxima inside the lab: Linux's default 6 MiB would cap a long fat pipe below its BDP. */
const TCP_BUFFER_MAX = 64 * 1024 * 1024;

export interface LabLink extends Link {
  /** Drop-tail limit per direction, bytes (default: one BDP of the round trip). */
  readonly queueBytes?: number;
  readonly jitterMs?: number;
  /**
   * Random loss in bursts (a Gilbert model): the packets lost come in runs of
   * this many on average, the average loss still `lossRate`, as a fading
   * Wi-Fi or DSL hop loses them. Absent or 1: each packet on its own.
   */
  readonly lossBurstPackets?: number;
  /**
   * The emulated hop's MTU (issue 52): larger packets are dropped there, and
   * answered with ICMP "fragmentation needed" unless `icmp` is false (a
   * firewall that drops ICMP: a path MTU black hole). Absent: 1500, the
   * devices' own. (Link.mtuBytes is the model's; this is the hop itself.)
   */
  readonly hopMtuBytes?: number;
  readonly icmp?: boolean;
}

export interface LabState {
  readonly id: string;
  readonly branch: string;
  readonly datacenter: string;
  readonly link: LabLink;
  readonly congestion: string;
  /** What the datacenter's servers send with (its route's congestion control); absent in a state from before it was set. */
  readonly serverCongestion?: string;
  readonly forwarderPid: number;
  readonly statsFile: string;
  /** The share's folder, once made (before smbd starts). */
  readonly sharePath?: string;
  readonly iperfPid?: number;
  readonly samba?: { readonly pid: number; readonly root: string; readonly sharePath: string; readonly password: string };
  /** A WireGuard tunnel across the link (LabOptions.tunnel): the share and iperf3 are reached through it. */
  readonly tunnel?: WireguardTunnel;
  readonly createdAt: string;
}

/** What `lab up --json` prints: where to point a client run inside the branch namespace. */
export interface LabEndpoints {
  readonly id: string;
  readonly share?: string;
  readonly user?: string;
  readonly password?: string;
  readonly iperf?: string;
  readonly clientNamespace: string;
  readonly congestion: string;
  /** What the servers send with (SERVER_CONGESTION unless the lab was brought up otherwise). */
  readonly serverCongestion?: string;
}

/** The lab's share lives on tmpfs, in a folder of its own with an unguessable name. */
const SHARE_PARENT = '/dev/shm';
const SHARE_PREFIX = 'pipefill-lab-';
const isLabSharePath = (path: string) => new RegExp(`^${SHARE_PARENT}/${SHARE_PREFIX}[A-Za-z0-9]{6}$`).test(path);

/** Removes a lab's share folder: only one of the lab's own shape, and never through a link. */
function removeLabShare(path: string | undefined): void {
  if (path === undefined || !isLabSharePath(path)) return;
  try {
    if (!lstatSync(path).isDirectory()) return;
  } catch {
    return;
  }
  rmSync(path, { recursive: true, force: true });
}

function statePath(id: string): string {
  return join(LAB_STATE_DIR, `${id}.json`);
}

function controlPath(id: string): string {
  return join(LAB_STATE_DIR, `${id}.control`);
}

function makeNamespace(name: string, address: string, peer: string): void {
  run('ip', ['netns', 'add', name]);
  run('ip', ['-n', name, 'link', 'set', 'lo', 'up']);
  // Persistent TUN inside the namespace; the forwarder attaches to it.
  run('ip', ['-n', name, 'tuntap', 'add', 'dev', DEVICE, 'mode', 'tun']);
  // A long queue on the device, or it drops during slow start.
  run('ip', ['-n', name, 'link', 'set', DEVICE, 'txqueuelen', '10000', 'mtu', '1500']);
  run('ip', ['-n', name, 'addr', 'add', address, 'peer', peer, 'dev', DEVICE]);
  run('ip', ['-n', name, 'link', 'set', DEVICE, 'up']);
  inNamespace(name, 'sysctl', ['-qw', `net.ipv4.tcp_rmem=4096 131072 ${TCP_BUFFER_MAX}`, `net.ipv4.tcp_wmem=4096 16384 ${TCP_BUFFER_MAX}`]);
}

export interface LabOptions {
  readonly samba?: boolean;
  /** smb.conf [global] settings for the lab's Samba, already checked against the catalogue (src/advice/samba-option.ts). */
  readonly sambaGlobals?: Readonly<Record<string, string>>;
  readonly iperf?: boolean;
  readonly seed?: number;
  /** The congestion control the datacenter's servers send with (default SERVER_CONGESTION). */
  readonly serverCongestion?: string;
  /** A VPN between branch and datacenter (src/lab/wireguard.ts): the share and iperf3 are then reached at its address, as from behind one. */
  readonly tunnel?: 'wireguard';
}

/** The emulated hop's queue: the link's own, or one BDP where none is given, at least 64 KiB. */
export function labQueueBytes(link: Pick<LabLink, 'queueBytes' | 'bandwidthBitsPerSecond' | 'rttMs'>): number {
  return link.queueBytes ?? Math.max(64 * 1024, Math.round(bdpBytes(link)));
}

/** Brings a lab up. On any failure it removes what it made. */
export async function labUp(link: LabLink, options: LabOptions = {}): Promise<LabState> {
  requireLab();
  const binary = forwarderBinary();
  privateDirectory(LAB_STATE_DIR);
  const id = randomBytes(3).toString('hex');
  const branch = `${NAMESPACE_PREFIX}br-${id}`;
  const datacenter = `${NAMESPACE_PREFIX}dc-${id}`;
  const statsFile = join(LAB_STATE_DIR, `${id}.stats.json`);
  let state: LabState = { id, branch, datacenter, link, congestion: '', forwarderPid: 0, statsFile, createdAt: new Date().toISOString() };
  const save = () => replaceFile(statePath(id), `${JSON.stringify(state, null, 2)}\n`, { newMode: 0o600 });
  createExclusive(statePath(id), `${JSON.stringify(state, null, 2)}\n`);
  try {
    makeNamespace(branch, BRANCH_ADDRESS, DATACENTER_ADDRESS);
    makeNamespace(datacenter, DATACENTER_ADDRESS, BRANCH_ADDRESS);
    const serverCongestion = options.serverCongestion ?? SERVER_CONGESTION;
    setRouteCongestion(datacenter, serverCongestion);
    const congestion = inNamespace(branch, 'sysctl', ['-n', 'net.ipv4.tcp_congestion_control']).trim();
    const log = openNewLog(join(LAB_STATE_DIR, `${id}.wanem.log`));
    const queueBytes = labQueueBytes(link);
    const forwarder = spawn(
      binary,
      [
        '--a-netns',
        `/run/netns/${branch}`,
        '--a-dev',
        DEVICE,
        '--b-netns',
        `/run/netns/${datacenter}`,
        '--b-dev',
        DEVICE,
        '--rate-bps',
        String(Math.round(link.bandwidthBitsPerSecond)),
        '--delay-us',
        String(Math.round((link.rttMs * 1000) / 2)),
        '--queue-bytes',
        String(queueBytes),
        '--loss',
        String(link.lossRate ?? 0),
        '--loss-burst',
        String(link.lossBurstPackets ?? 1),
        '--jitter-us',
        String(Math.round((link.jitterMs ?? 0) * 1000)),
        '--seed',
        String(options.seed ?? 1),
        '--stats',
        statsFile,
        '--control',
        controlPath(id),
        ...(link.hopMtuBytes === undefined ? [] : ['--mtu', String(link.hopMtuBytes), '--icmp', link.icmp === false ? '0' : '1']),
      ],
      { detached: true, stdio: ['ignore', log, log] },
    );
    forwarder.unref();
    state = { ...state, congestion, serverCongestion, forwarderPid: forwarder.pid ?? 0 };
    save();
    await waitFor(() => existsSync(statsFile) || !alive(forwarder.pid), 'The forwarder');
    if (!alive(forwarder.pid))
      throw new PipefillError(
        'lab-failed',
        `The forwarder exited at start: ${readFileSync(join(LAB_STATE_DIR, `${id}.wanem.log`), 'utf8').trim()}`,
        'Run `pipefill lab down` and try again.',
      );
    if (options.tunnel === 'wireguard') {
      const lab = { id, branch, datacenter, branchAddress: BRANCH_ADDRESS, datacenterAddress: DATACENTER_ADDRESS };
      await wireguardUp(lab, (tunnel) => {
        state = { ...state, tunnel };
        save();
      });
    }
    const serverAddress = state.tunnel?.datacenterAddress ?? DATACENTER_ADDRESS;
    if (options.iperf !== false) {
      const iperf = spawn('ip', ['netns', 'exec', datacenter, 'iperf3', '-s', '-B', serverAddress, '-p', String(IPERF_PORT)], {
        detached: true,
        stdio: 'ignore',
      });
      iperf.unref();
      state = { ...state, ...(iperf.pid === undefined ? {} : { iperfPid: iperf.pid }) };
      save();
      await waitFor(() => inNamespace(datacenter, 'ss', ['-ltnH', `sport = :${IPERF_PORT}`]).trim() !== '', 'iperf3');
    }
    if (options.samba !== false) {
      const sharePath = freshDirectory(SHARE_PARENT, SHARE_PREFIX);
      // Recorded before smbd starts, so `down` removes it even when the start fails.
      state = { ...state, sharePath };
      save();
      const samba = await SambaServer.start({
        address: serverAddress,
        port: 445,
        commandPrefix: ['ip', 'netns', 'exec', datacenter],
        sharePath,
        detach: true,
        bindAll: true,
        ...(options.sambaGlobals ? { globals: options.sambaGlobals } : {}),
      });
      state = { ...state, samba: { pid: samba.pid ?? 0, root: samba.root, sharePath, password: samba.password } };
      save();
    }
    return state;
  } catch (error) {
    await labDown(id);
    throw error;
  }
}

export function labEndpoints(state: LabState): LabEndpoints {
  const server = state.tunnel?.datacenterAddress ?? DATACENTER_ADDRESS;
  return {
    id: state.id,
    ...(state.samba ? { share: `//${server}/share`, user: SAMBA_USER, password: state.samba.password } : {}),
    ...(state.iperfPid ? { iperf: `${server}:${IPERF_PORT}` } : {}),
    clientNamespace: state.branch,
    congestion: state.congestion,
    ...(state.serverCongestion ? { serverCongestion: state.serverCongestion } : {}),
  };
}

export function readLabStates(): LabState[] {
  if (!existsSync(LAB_STATE_DIR)) return [];
  privateDirectory(LAB_STATE_DIR);
  return readdirSync(LAB_STATE_DIR)
    .filter((name) => /^[0-9a-f]{6}\.json$/.test(name))
    .map((name) => JSON.parse(readFileSync(join(LAB_STATE_DIR, name), 'utf8')) as LabState);
}

/** The forwarder's counters, fresh (it rewrites the file on SIGUSR1). */
export async function forwarderStats(state: LabState): Promise<unknown> {
  const before = existsSync(state.statsFile) ? statSync(state.statsFile).mtimeMs : 0;
  process.kill(state.forwarderPid, 'SIGUSR1');
  await waitFor(() => existsSync(state.statsFile) && statSync(state.statsFile).mtimeMs > before, 'Forwarder counters');
  return JSON.parse(readFileSync(state.statsFile, 'utf8')) as unknown;
}

/** What a running lab's link can be changed to: the failures a real path has (tests of a failing link). */
export interface LinkChange {
  readonly rttMs?: number;
  readonly lossRate?: number;
  /** Drop every packet both ways until set false again. */
  readonly blackhole?: boolean;
  /** The drop-tail limit per direction, bytes (the forwarder takes 1600 or more). */
  readonly queueBytes?: number;
}

interface ForwarderSettings {
  readonly delayUs: number;
  readonly loss: number;
  readonly blackhole: number;
  readonly queueBytes: number;
  readonly controlApplied: number;
}

/**
 * Changes the running link (the forwarder re-reads its control file on
 * SIGUSR2) and returns once its counters show the change applied.
 */
export async function changeLink(state: LabState, change: LinkChange): Promise<void> {
  const before = (await forwarderStats(state)) as ForwarderSettings;
  const lines = [
    ...(change.rttMs === undefined ? [] : [`delay-us=${Math.round((change.rttMs * 1000) / 2)}`]),
    ...(change.lossRate === undefined ? [] : [`loss=${change.lossRate}`]),
    ...(change.blackhole === undefined ? [] : [`blackhole=${change.blackhole ? 1 : 0}`]),
    ...(change.queueBytes === undefined ? [] : [`queue-bytes=${Math.round(change.queueBytes)}`]),
  ];
  replaceFile(controlPath(state.id), `${lines.join('\n')}\n`, { newMode: 0o600 });
  process.kill(state.forwarderPid, 'SIGUSR2');
  await waitFor(() => {
    try {
      return (JSON.parse(readFileSync(state.statsFile, 'utf8')) as ForwarderSettings).controlApplied > before.controlApplied;
    } catch {
      return false;
    }
  }, 'The link change');
  const after = JSON.parse(readFileSync(state.statsFile, 'utf8')) as ForwarderSettings;
  if (
    (change.blackhole !== undefined && after.blackhole !== (change.blackhole ? 1 : 0)) ||
    (change.rttMs !== undefined && after.delayUs !== Math.round((change.rttMs * 1000) / 2)) ||
    (change.queueBytes !== undefined && after.queueBytes !== Math.round(change.queueBytes))
  ) {
    throw new PipefillError('lab-failed', `The forwarder did not take the change (${lines.join(', ')}).`, 'Check the forwarder log in /run/pipefill-lab.');
  }
}

/**
 * Removes a lab at once, without waiting for its processes to go: kills them
 * by PID, deletes its namespaces and files. For an exit handler (which cannot
 * wait); labDown gives the processes their time first and then does this.
 */
export function removeLabNow(state: LabState): void {
  for (const pid of [state.samba?.pid, state.iperfPid, state.forwarderPid]) if (pid !== undefined && pid > 0) killGroup(pid, 'SIGKILL');
  if (state.tunnel) removeWireguard(state.tunnel);
  for (const namespace of [state.branch, state.datacenter]) spawnSync('ip', ['netns', 'del', namespace], { stdio: 'ignore' });
  if (state.samba) rmSync(state.samba.root, { recursive: true, force: true });
  removeLabShare(state.sharePath ?? state.samba?.sharePath);
  for (const file of [statePath(state.id), state.statsFile, controlPath(state.id), join(LAB_STATE_DIR, `${state.id}.wanem.log`)]) rmSync(file, { force: true });
}

/**
 * Removes one lab (or every lab when no id is given): its processes by PID,
 * its namespaces, its files. Safe to run twice. Returns the ids removed.
 */
export async function labDown(id?: string): Promise<string[]> {
  requireLab();
  const states = readLabStates().filter((state) => id === undefined || state.id === id);
  for (const state of states) {
    const pids = [state.samba?.pid, state.iperfPid, state.forwarderPid, ...(state.tunnel?.pids ?? [])].filter(
      (pid): pid is number => pid !== undefined && pid > 0,
    );
    for (const pid of pids) killGroup(pid, 'SIGTERM');
    // Give them 2 s to go, then make sure (at most 40 checks).
    for (let check = 0; check < 40 && pids.some(alive); check++) await new Promise((resolve) => setTimeout(resolve, 50));
    removeLabNow(state);
  }
  // Namespaces of ours whose state file is gone (a crash between steps): remove them too.
  if (id === undefined) {
    const listed = spawnSync('ip', ['netns', 'list'], { encoding: 'utf8' }).stdout ?? '';
    for (const line of listed.split('\n')) {
      const name = line.split(' ')[0] ?? '';
      if (/^pf-(br|dc)-[0-9a-f]{6}$/.test(name)) spawnSync('ip', ['netns', 'del', name], { stdio: 'ignore' });
    }
  }
  return states.map((state) => state.id);
}

/**
 * TCP handshake times (ms) to `port` in the datacenter, measured from inside
 * the branch namespace: one round trip each, as the RTT probe measures it.
 * smbd's port by default; not iperf3's, which re-opens its listener after
 * every client, so a quick series of probes meets a refusal.
 */
export function handshakeTimesMs(state: LabState, samples: number, port = 445): number[] {
  const script = `const net=require('node:net');(async()=>{const t=[];for(let i=0;i<${samples};i++){const s=process.hrtime.bigint();await new Promise((ok,no)=>{const c=net.connect(${port},'${DATACENTER_ADDRESS}',()=>{t.push(Number(process.hrtime.bigint()-s)/1e6);c.destroy();ok()});c.on('error',no)});}console.log(JSON.stringify(t))})()`;
  const run = inBranch(state, process.execPath, ['-e', script]);
  if (run.status !== 0) throw new PipefillError('lab-failed', `The RTT probe failed: ${run.stderr.trim()}`, 'Run `pipefill lab down` and try again.');
  return JSON.parse(run.stdout) as number[];
}

/** Runs a command inside the branch namespace (a client across the emulated link). */
export function inBranch(
  state: LabState,
  command: string,
  args: readonly string[],
  options: { input?: string; timeoutMs?: number; env?: NodeJS.ProcessEnv } = {},
) {
  return spawnSync('ip', ['netns', 'exec', state.branch, command, ...args], {
    encoding: 'utf8',
    timeout: options.timeoutMs ?? 120_000,
    ...(options.input === undefined ? {} : { input: options.input }),
    ...(options.env ? { env: options.env } : {}),
  });
}
