// A real VPN across the WAN lab (issue 52): WireGuard in user space
// (wireguard-go, built from the Go module proxy; nobody on the project wrote
// it) in the branch and the datacenter, its UDP crossing the emulated link.
// An assessment pointed at the tunnel's addresses then crosses a VPN as a
// person's would: smaller packets inside, the tunnel's own headers on the line.
//
// Each end is configured over wireguard-go's UAPI socket (the text protocol
// `wg` speaks: https://www.wireguard.com/xplatform/), so no `wg` tool is
// needed. Processes are recorded by PID in the lab's state and killed with it.

import { spawn, spawnSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PipefillError } from '../model/errors.js';
import { alive, inNamespace, run, waitFor } from './lab-system.js';

export const WIREGUARD_GO_MODULE = 'golang.zx2c4.com/wireguard';
/** The newest the Go module proxy served on 2026-11-28 (its go.mod asks for Go 1.23.1). */
export const WIREGUARD_GO_VERSION = 'v0.0.0-20260522210424-ecfc5a8d5446';
const MINIMUM_GO_MINOR = 23;

/** The tunnel's inner addresses: a subnet of their own, beside the emulated link's 10.77.0.0/30. */
export const TUNNEL_BRANCH_ADDRESS = '10.79.0.1';
export const TUNNEL_DATACENTER_ADDRESS = '10.79.0.2';
/**
 * The tunnel interface's MTU: wg-quick's and wireguard-go's default, 1500
 * less the 80 bytes an IPv6 outer header, UDP and WireGuard's own 32 take
 * (over IPv4, as here, 60 of them; the rest of the 1500 stays unused).
 */
export const WIREGUARD_MTU_BYTES = 1420;
const LISTEN_PORT = 51820;
/** Where wireguard-go puts each interface's UAPI socket (ipc/uapi_linux.go). */
const SOCKET_DIRECTORY = '/var/run/wireguard';
const UAPI_TIMEOUT_MS = 5000;

export interface WireguardTunnel {
  readonly pids: readonly number[];
  /** One interface name per end (each has its own UAPI socket, so the two never share a name). */
  readonly interfaces: readonly string[];
  readonly branchAddress: string;
  readonly datacenterAddress: string;
  readonly mtuBytes: number;
}

/** A Go of at least 1.23: the one on PATH, else /usr/local/go's (Debian 12's golang-go is 1.19, too old for this wireguard-go). */
function goCommand(): string {
  for (const candidate of ['go', '/usr/local/go/bin/go']) {
    const version = spawnSync(candidate, ['env', 'GOVERSION'], { encoding: 'utf8' });
    const minor = /^go1\.(\d+)/.exec(version.stdout?.trim() ?? '')?.[1];
    if (version.status === 0 && minor !== undefined && Number(minor) >= MINIMUM_GO_MINOR) return candidate;
  }
  throw new PipefillError(
    'lab-unsupported',
    `The WireGuard lab builds wireguard-go, which needs Go 1.${MINIMUM_GO_MINOR} or newer; none was found on PATH or in /usr/local/go.`,
    'Install Go from go.dev (Debian 12 packages Go 1.19) or skip the tunnel tests.',
  );
}

/** wireguard-go at the pinned version, built once into the project's cache (about 15 s). */
export function wireguardBinary(): string {
  const directory = fileURLToPath(new URL(`../../node_modules/.cache/pipefill/wireguard-go/${WIREGUARD_GO_VERSION}`, import.meta.url));
  const binary = join(directory, 'wireguard');
  if (existsSync(binary)) return binary;
  mkdirSync(directory, { recursive: true });
  const built = spawnSync(goCommand(), ['install', `${WIREGUARD_GO_MODULE}@${WIREGUARD_GO_VERSION}`], {
    encoding: 'utf8',
    env: { ...process.env, GOBIN: directory, GOFLAGS: '-mod=mod' },
    timeout: 300_000,
  });
  if (built.status !== 0 || !existsSync(binary))
    throw new PipefillError(
      'lab-failed',
      `Building wireguard-go failed: ${(built.stderr || String(built.error)).trim()}`,
      'The Go module proxy must be reachable (GOPROXY); see the message above.',
    );
  return binary;
}

/** A Curve25519 key pair in the hex UAPI takes. */
function keyPair(): { privateHex: string; publicHex: string } {
  const { privateKey, publicKey } = generateKeyPairSync('x25519');
  const hex = (base64url: unknown) => {
    if (typeof base64url !== 'string') throw new Error('The key had no raw form.');
    return Buffer.from(base64url, 'base64url').toString('hex');
  };
  return { privateHex: hex(privateKey.export({ format: 'jwk' }).d), publicHex: hex(publicKey.export({ format: 'jwk' }).x) };
}

/** Sends one UAPI request (`set=1` or `get=1` and its lines) and returns the reply's lines once it ends in `errno=0`; anything else, or silence, throws. */
function uapi(socketPath: string, lines: readonly string[]): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const socket = connect(socketPath);
    let reply = '';
    const fail = (message: string) => {
      socket.destroy();
      reject(new PipefillError('lab-failed', `WireGuard's UAPI at ${socketPath}: ${message}`, 'Run `pipefill lab down` and try again.'));
    };
    const timer = setTimeout(() => fail(`no answer within ${UAPI_TIMEOUT_MS / 1000} s`), UAPI_TIMEOUT_MS);
    socket.on('connect', () => socket.write(`${lines.join('\n')}\n\n`));
    socket.on('data', (chunk: Buffer) => {
      reply += chunk.toString('utf8');
      if (reply.length > 16_384) return fail('a reply too long to be one');
      if (!reply.endsWith('\n\n')) return;
      clearTimeout(timer);
      socket.end();
      const replyLines = reply.trim().split('\n');
      if (replyLines.at(-1) === 'errno=0') resolve(replyLines.slice(0, -1));
      else fail(`refused the request (${reply.trim().slice(0, 200)})`);
    });
    socket.on('error', (error) => {
      clearTimeout(timer);
      fail(error.message);
    });
  });
}

const socketOf = (name: string) => join(SOCKET_DIRECTORY, `${name}.sock`);

/** Kills a tunnel's processes by PID and removes their sockets; safe to run twice. */
export function removeWireguard(tunnel: Pick<WireguardTunnel, 'pids' | 'interfaces'>): void {
  for (const pid of tunnel.pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
  for (const name of tunnel.interfaces) if (/^pfw[bd]-[0-9a-f]{6}$/.test(name)) rmSync(socketOf(name), { force: true });
}

/**
 * Sends the tunnel its first packet (a UDP datagram to the discard port, from
 * the branch) and waits for the handshake it starts, so a tunnel that cannot
 * form says so here and not as a copy that never connects.
 */
async function handshake(branch: string, socketPath: string): Promise<void> {
  const handshook = async () => (await uapi(socketPath, ['get=1'])).some((line) => /^last_handshake_time_sec=[1-9]/.test(line));
  // At most 5 s: a datagram a second (a lost one is sent again), the handshake looked for every 250 ms.
  for (let attempt = 0; attempt < 20; attempt++) {
    if (attempt % 4 === 0) inNamespace(branch, 'bash', ['-c', `echo pipefill > /dev/udp/${TUNNEL_DATACENTER_ADDRESS}/9`]);
    await new Promise((resolve) => setTimeout(resolve, 250));
    if (await handshook()) return;
  }
  throw new PipefillError(
    'lab-failed',
    'The WireGuard tunnel formed no handshake within 5 s.',
    "Look at the lab forwarder's counters: the emulated link must pass UDP.",
  );
}

interface End {
  readonly namespace: string;
  readonly name: string;
  readonly outerAddress: string;
  readonly innerAddress: string;
}

/**
 * Starts wireguard-go in both of a lab's namespaces and joins them: each end
 * listens on the emulated link's address and takes the other's inner
 * address as its one peer. `record` gets each PID as soon as it exists, so a
 * lab torn down after a failure here kills it too.
 */
export async function wireguardUp(
  lab: { readonly id: string; readonly branch: string; readonly datacenter: string; readonly branchAddress: string; readonly datacenterAddress: string },
  record: (tunnel: WireguardTunnel) => void,
): Promise<WireguardTunnel> {
  const binary = wireguardBinary();
  const ends: [End, End] = [
    { namespace: lab.branch, name: `pfwb-${lab.id}`, outerAddress: lab.branchAddress, innerAddress: TUNNEL_BRANCH_ADDRESS },
    { namespace: lab.datacenter, name: `pfwd-${lab.id}`, outerAddress: lab.datacenterAddress, innerAddress: TUNNEL_DATACENTER_ADDRESS },
  ];
  let tunnel: WireguardTunnel = {
    pids: [],
    interfaces: ends.map((end) => end.name),
    branchAddress: TUNNEL_BRANCH_ADDRESS,
    datacenterAddress: TUNNEL_DATACENTER_ADDRESS,
    mtuBytes: WIREGUARD_MTU_BYTES,
  };
  for (const end of ends) {
    if (!/^[a-z0-9-]{1,15}$/.test(end.name)) throw new RangeError(`${end.name} is no interface name.`);
    // A socket of this name is another lab's (ids are random): never take it over.
    if (existsSync(socketOf(end.name))) throw new PipefillError('lab-failed', `${socketOf(end.name)} exists already.`, 'Run `pipefill lab down` first.');
    const child = spawn('ip', ['netns', 'exec', end.namespace, binary, '-f', end.name], { detached: true, stdio: 'ignore' });
    child.unref();
    if (child.pid === undefined) throw new PipefillError('lab-failed', 'wireguard-go did not start.', 'Run `pipefill lab down` and try again.');
    tunnel = { ...tunnel, pids: [...tunnel.pids, child.pid] };
    record(tunnel);
    await waitFor(() => existsSync(socketOf(end.name)) || !alive(child.pid), `wireguard-go (${end.name})`);
    if (!alive(child.pid)) throw new PipefillError('lab-failed', `wireguard-go (${end.name}) exited at start.`, 'Run it by hand in the namespace to see why.');
  }
  const keys = ends.map(() => keyPair());
  for (const [index, end] of ends.entries()) {
    const peer = ends[1 - index] as End;
    const peerKey = keys[1 - index] as { publicHex: string };
    await uapi(socketOf(end.name), [
      'set=1',
      `private_key=${(keys[index] as { privateHex: string }).privateHex}`,
      `listen_port=${LISTEN_PORT}`,
      'replace_peers=true',
      `public_key=${peerKey.publicHex}`,
      `endpoint=${peer.outerAddress}:${LISTEN_PORT}`,
      'replace_allowed_ips=true',
      `allowed_ip=${peer.innerAddress}/32`,
    ]);
    run('ip', ['-n', end.namespace, 'addr', 'add', `${end.innerAddress}/32`, 'peer', `${peer.innerAddress}/32`, 'dev', end.name]);
    run('ip', ['-n', end.namespace, 'link', 'set', end.name, 'mtu', String(WIREGUARD_MTU_BYTES), 'up']);
  }
  await handshake(lab.branch, socketOf(ends[0].name));
  return tunnel;
}
