// What is set today, where Pipefill can read it: a Samba smb.conf through
// testparm (which resolves includes and defaults the way smbd will), and
// this machine's TCP sysctls. Recommendations start from these values.

import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { KnobValue } from '../advice/knobs.js';
import { PipefillError } from '../model/errors.js';

/** smb.conf parameters Pipefill tunes, by knob id. */
export const SAMBA_PARAMETERS: Readonly<Record<string, string>> = {
  'samba.smb2-max-credits': 'smb2 max credits',
  'samba.smb2-max-read': 'smb2 max read',
  'samba.smb2-max-write': 'smb2 max write',
  'samba.smb2-max-trans': 'smb2 max trans',
  'samba.socket-options': 'socket options',
  'samba.aio-read-size': 'aio read size',
  'samba.aio-write-size': 'aio write size',
  'samba.multi-channel': 'server multi channel support',
  'samba.server-signing': 'server signing',
  'samba.server-smb-encrypt': 'server smb encrypt',
  'samba.encryption-algorithms': 'server smb3 encryption algorithms',
  'samba.signing-algorithms': 'server smb3 signing algorithms',
};

const TEXT_PARAMETERS = new Set([
  'samba.socket-options',
  'samba.server-signing',
  'samba.server-smb-encrypt',
  'samba.encryption-algorithms',
  'samba.signing-algorithms',
]);

/** The [global] section of `testparm -s -v` output, parameter -> value (pure). */
export function parseTestparmGlobals(text: string): Map<string, string> {
  const globals = new Map<string, string>();
  let inGlobal = false;
  for (const line of text.split('\n')) {
    const section = /^\s*\[(.+)\]\s*$/.exec(line);
    if (section) {
      inGlobal = section[1]?.toLowerCase() === 'global';
      continue;
    }
    const pair = /^\s*([^=#;]+?)\s*=\s*(.*?)\s*$/.exec(line);
    if (inGlobal && pair?.[1] !== undefined) globals.set(pair[1].toLowerCase(), pair[2] ?? '');
  }
  return globals;
}

function typed(value: string): KnobValue {
  if (/^\d+$/.test(value)) return Number(value);
  if (/^(yes|true)$/i.test(value)) return true;
  if (/^(no|false)$/i.test(value)) return false;
  return value;
}

/** Knob values from testparm's view of an smb.conf (pure). */
export function sambaValues(globals: ReadonlyMap<string, string>): Record<string, KnobValue> {
  const values: Record<string, KnobValue> = {};
  for (const [id, parameter] of Object.entries(SAMBA_PARAMETERS)) {
    const value = globals.get(parameter);
    // Text and enum values stay text ("default", lists of algorithms); numbers and yes/no are typed.
    if (value !== undefined) values[id] = TEXT_PARAMETERS.has(id) ? value : typed(value);
  }
  return values;
}

export function testparm(smbConf: string): string {
  const run = spawnSync('testparm', ['-s', '-v', '--suppress-prompt', '--', resolve(smbConf)], { encoding: 'utf8', timeout: 15_000 });
  if (run.error)
    throw new PipefillError('tool-missing', `Cannot run testparm: ${run.error.message}.`, "Install Samba's tools (apt-get install samba-common-bin).");
  if (run.status !== 0)
    throw new PipefillError(
      'bad-config',
      `testparm rejects ${smbConf}: ${(run.stderr || run.stdout).trim().split('\n').slice(-3).join(' ')}`,
      'Fix the file, or point --smb-conf at the right one.',
    );
  return run.stdout;
}

export function readSmbConfValues(smbConf: string): Record<string, KnobValue> {
  return sambaValues(parseTestparmGlobals(testparm(smbConf)));
}

const third = (text: string) => Number(text.trim().split(/\s+/)[2]);

/** This machine's (this network namespace's) TCP buffer maxima, as knob values. Linux only; empty elsewhere. */
export function readLinuxSysctlValues(procRoot = '/proc/sys'): Record<string, KnobValue> {
  if (process.platform !== 'linux') return {};
  const read = (path: string) => {
    try {
      return readFileSync(`${procRoot}/${path}`, 'utf8');
    } catch {
      return undefined;
    }
  };
  const values: Record<string, KnobValue> = {};
  const rmem = read('net/ipv4/tcp_rmem');
  const wmem = read('net/ipv4/tcp_wmem');
  const congestion = read('net/ipv4/tcp_congestion_control');
  if (rmem && Number.isFinite(third(rmem))) values['linux.tcp-rmem'] = third(rmem);
  if (wmem && Number.isFinite(third(wmem))) values['linux.tcp-wmem'] = third(wmem);
  if (congestion) values['linux.congestion-control'] = congestion.trim();
  for (const [id, path] of [
    ['linux.rmem-max', 'net/core/rmem_max'],
    ['linux.wmem-max', 'net/core/wmem_max'],
  ] as const) {
    const text = read(path);
    if (text && Number.isFinite(Number(text.trim()))) values[id] = Number(text.trim());
  }
  return values;
}
