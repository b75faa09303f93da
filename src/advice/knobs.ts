// The catalogue of settings Pipefill knows: exact names, where each lives,
// its default, the range Pipefill will propose within, the versions it
// applies to, and where it is documented. Knobs the model can weigh carry
// `effect` (the profiles with the new value) and `propose` (the value this
// path needs); the others are listed for completeness and never proposed,
// since the model cannot show that they help.

import type { ClientProfile, ClientProfileId } from '../model/client-profiles.js';
import { KIB, MIB } from '../model/client-profiles.js';
import { BYTES_PER_CREDIT } from '../model/in-flight.js';
import type { Link } from '../model/link.js';
import type { ServerProfile, ServerProfileId } from '../model/server-profiles.js';
import { SERVER_PROFILES } from '../model/server-profiles.js';

export type Platform = 'windows-client' | 'windows-server' | 'samba' | 'ontap' | 'linux' | 'macos' | 'copy-tool';
export type KnobValue = number | string | boolean;

/** The pair being tuned, and how many files the copy tool moves at once. */
export interface Setup {
  readonly client: ClientProfile;
  readonly server: ServerProfile;
  readonly lanes: number;
}

export interface ProposalContext {
  readonly link: Link;
  readonly bdpBytes: number;
  readonly setup: Setup;
  /** The largest request the client sends on this path (bytes). */
  readonly requestBytes: number;
}

export interface Knob {
  readonly id: string;
  readonly platform: Platform;
  /** The exact name: a parameter, registry value, sysctl or option. */
  readonly name: string;
  readonly location: string;
  readonly type: 'integer' | 'bytes' | 'enum' | 'boolean' | 'text';
  readonly defaultValue: KnobValue;
  /** Numeric knobs: the span Pipefill proposes values within (documented limits, or a safe part of them). */
  readonly range?: readonly [number, number];
  readonly values?: readonly string[];
  /** Text knobs: the whole value must match (anything else is refused before a write). */
  readonly pattern?: RegExp;
  readonly patternHint?: string;
  readonly versions: string;
  readonly source: string;
  readonly caution?: string;
  /** The command, script line or configuration line that sets it. */
  command(value: KnobValue): string;
  /** What the model's profiles look like with this value (absent: the model cannot weigh it). */
  effect?(setup: Setup, value: KnobValue): Setup;
  /** The value this path needs (absent or undefined: none). */
  propose?(context: ProposalContext): KnobValue | undefined;
}

/** Windows ≥ 2 x BDP: a window of twice the path's BDP keeps it full through loss recovery. */
const WINDOW_FACTOR = 2;
/** Credits: what 2 x BDP needs at the request size, plus a quarter for the requests being answered. */
const CREDIT_HEADROOM = 1.25;

const roundUpTo = (value: number, step: number) => Math.ceil(value / step) * step;
const clamp = (value: number, [min, max]: readonly [number, number]) => Math.min(max, Math.max(min, value));

/** A socket buffer that gives a window of 2 x BDP (about half a Linux buffer carries payload), in whole MiB. */
function linuxBufferFor(context: ProposalContext, range: readonly [number, number]): number {
  return clamp(roundUpTo(WINDOW_FACTOR * context.bdpBytes * 2, MIB), range);
}

function creditsFor(context: ProposalContext, range: readonly [number, number]): number {
  const requestCredits = Math.max(1, Math.ceil(context.requestBytes / BYTES_PER_CREDIT));
  const requests = Math.ceil((WINDOW_FACTOR * context.bdpBytes) / context.requestBytes);
  return clamp(roundUpTo(requests * requestCredits * CREDIT_HEADROOM, 64), range);
}

const withServer = (setup: Setup, server: Partial<ServerProfile>): Setup => ({ ...setup, server: { ...setup.server, ...server } });
const withServerSmb2 = (setup: Setup, smb2: Partial<ServerProfile['smb2']>): Setup => withServer(setup, { smb2: { ...setup.server.smb2, ...smb2 } });
const withServerTcp = (setup: Setup, tcp: Partial<ServerProfile['tcp']>): Setup => withServer(setup, { tcp: { ...setup.server.tcp, ...tcp } });
const withClientTcp = (setup: Setup, tcp: Partial<ClientProfile['tcp']>): Setup => ({ ...setup, client: { ...setup.client, tcp: { ...setup.client.tcp, ...tcp } } });

const WINDOWS_SMB_TUNING = 'Microsoft Learn: "Performance tuning for SMB file servers" (Windows Server)';
const SMB_CONF = 'smb.conf(5), Samba 4.17';
const IP_SYSCTL = 'Linux kernel documentation: networking/ip-sysctl';

const CREDIT_RANGE: readonly [number, number] = [512, 32768];
const SAMBA_CREDIT_RANGE: readonly [number, number] = [128, 32768];
const ONTAP_CREDIT_RANGE: readonly [number, number] = [128, 8192];
const LINUX_BUFFER_RANGE: readonly [number, number] = [4 * MIB, 256 * MIB];
const ONTAP_WINDOW_RANGE: readonly [number, number] = [17_520, 2_096_560];

/** `smb2 max read` and `smb2 max write`: the largest request smbd negotiates, per direction. */
function sambaRequestSizeKnob(op: 'read' | 'write'): Knob {
  const field = op === 'read' ? 'maxReadBytes' : 'maxWriteBytes';
  return {
    id: `samba.smb2-max-${op}`,
    platform: 'samba',
    name: `smb2 max ${op}`,
    location: 'smb.conf [global]',
    type: 'bytes',
    defaultValue: 8 * MIB,
    range: [64 * KIB, 8 * MIB],
    versions: 'Samba 3.6 and later (8 MiB default from 4.3)',
    source: SMB_CONF,
    command: (value) => `smb2 max ${op} = ${Number(value)}`,
    effect: (setup, value) => withServerSmb2(setup, { [field]: Number(value) }),
    propose: ({ setup }) => (setup.client.largeMtu && setup.server.smb2[field] < setup.client.maxRequestBytes[op] ? Math.min(8 * MIB, setup.client.maxRequestBytes[op]) : undefined),
  };
}

export const KNOBS: readonly Knob[] = [
  // --- Windows client ---------------------------------------------------------
  {
    id: 'windows-client.autotuninglevel',
    platform: 'windows-client',
    name: 'autotuninglevel',
    location: 'netsh interface tcp global settings',
    type: 'enum',
    defaultValue: 'normal',
    values: ['disabled', 'highlyrestricted', 'restricted', 'normal', 'experimental'],
    versions: 'Windows Vista and later',
    source: 'Microsoft Learn: netsh interface tcp',
    caution: '"disabled" pins the receive window at 64 KB, which caps every read at 64 KB per round trip.',
    command: (value) => `netsh int tcp set global autotuninglevel=${String(value)}`,
    effect: (setup, value) => withClientTcp(setup, { receiveWindowBytes: value === 'disabled' ? 64 * KIB : 16 * MIB }),
    propose: ({ setup, bdpBytes }) => (setup.client.tcp.receiveWindowBytes < WINDOW_FACTOR * bdpBytes ? 'normal' : undefined),
  },
  {
    id: 'windows-client.congestion-provider',
    platform: 'windows-client',
    name: 'CongestionProvider',
    location: 'Set-NetTCPSetting (the Internet / InternetCustom templates)',
    type: 'enum',
    defaultValue: 'CUBIC',
    values: ['CTCP', 'CUBIC', 'DCTCP', 'NewReno'],
    versions: 'Windows 8 / Server 2012 and later',
    source: 'Microsoft Learn: Set-NetTCPSetting',
    command: (value) => `Set-NetTCPSetting -SettingName InternetCustom -CongestionProvider ${String(value)}`,
  },
  {
    id: 'windows-client.ecn',
    platform: 'windows-client',
    name: 'EcnCapability',
    location: 'Set-NetTCPSetting',
    type: 'enum',
    defaultValue: 'Disabled',
    values: ['Disabled', 'Enabled'],
    versions: 'Windows 8 / Server 2012 and later',
    source: 'Microsoft Learn: Set-NetTCPSetting',
    command: (value) => `Set-NetTCPSetting -SettingName InternetCustom -EcnCapability ${String(value)}`,
  },
  {
    id: 'windows-client.bandwidth-throttling',
    platform: 'windows-client',
    name: 'DisableBandwidthThrottling',
    location: 'HKLM\\SYSTEM\\CurrentControlSet\\Services\\LanmanWorkstation\\Parameters (REG_DWORD); Set-SmbClientConfiguration -EnableBandwidthThrottling on Windows 8 and later',
    type: 'integer',
    defaultValue: 0,
    range: [0, 1],
    versions: 'Windows Vista and later',
    source: WINDOWS_SMB_TUNING,
    command: (value) => `Set-ItemProperty -Path 'HKLM:\\SYSTEM\\CurrentControlSet\\Services\\LanmanWorkstation\\Parameters' -Name DisableBandwidthThrottling -Type DWord -Value ${Number(value)}`,
    effect: (setup, value) => (Number(value) === 1 ? withServerSmb2(setup, { clientThrottleBytes: Infinity }) : setup),
    propose: ({ setup, bdpBytes }) => ((setup.server.smb2.clientThrottleBytes ?? Infinity) < WINDOW_FACTOR * bdpBytes ? 1 : undefined),
  },
  {
    id: 'windows-client.large-mtu',
    platform: 'windows-client',
    name: 'DisableLargeMtu',
    location: 'HKLM\\SYSTEM\\CurrentControlSet\\Services\\LanmanWorkstation\\Parameters (REG_DWORD); Set-SmbClientConfiguration -EnableLargeMtu on Windows 8 and later',
    type: 'integer',
    defaultValue: 1,
    range: [0, 1],
    versions: 'Windows 7 / Server 2008 R2 (off by default there; on by default from Windows 8)',
    source: WINDOWS_SMB_TUNING,
    command: (value) => `Set-ItemProperty -Path 'HKLM:\\SYSTEM\\CurrentControlSet\\Services\\LanmanWorkstation\\Parameters' -Name DisableLargeMtu -Type DWord -Value ${Number(value)}`,
    effect: (setup, value) => (Number(value) === 0 ? { ...setup, client: { ...setup.client, largeMtu: true, maxRequestBytes: { read: MIB, write: MIB } } } : setup),
    propose: ({ setup }) => (setup.client.protocol === 'smb2' && !setup.client.largeMtu && setup.client.dialect !== '2.0.2' && setup.server.smb2.maxReadBytes > 64 * KIB ? 0 : undefined),
  },
  {
    id: 'windows-client.file-info-cache',
    platform: 'windows-client',
    name: 'FileInfoCacheEntriesMax',
    location: 'HKLM\\SYSTEM\\CurrentControlSet\\Services\\LanmanWorkstation\\Parameters (REG_DWORD)',
    type: 'integer',
    defaultValue: 64,
    range: [1, 65536],
    versions: 'Windows Vista and later',
    source: WINDOWS_SMB_TUNING,
    caution: 'Helps repeated listings of large folders; a single copy pass does not reuse the cache, so the model shows no gain.',
    command: (value) => `Set-ItemProperty -Path 'HKLM:\\SYSTEM\\CurrentControlSet\\Services\\LanmanWorkstation\\Parameters' -Name FileInfoCacheEntriesMax -Type DWord -Value ${Number(value)}`,
  },
  {
    id: 'windows-client.directory-cache',
    platform: 'windows-client',
    name: 'DirectoryCacheEntriesMax',
    location: 'HKLM\\SYSTEM\\CurrentControlSet\\Services\\LanmanWorkstation\\Parameters (REG_DWORD)',
    type: 'integer',
    defaultValue: 16,
    range: [1, 4096],
    versions: 'Windows Vista and later',
    source: WINDOWS_SMB_TUNING,
    caution: 'As FileInfoCacheEntriesMax: no gain for a single copy pass.',
    command: (value) => `Set-ItemProperty -Path 'HKLM:\\SYSTEM\\CurrentControlSet\\Services\\LanmanWorkstation\\Parameters' -Name DirectoryCacheEntriesMax -Type DWord -Value ${Number(value)}`,
  },
  // --- Windows Server -----------------------------------------------------------
  {
    id: 'windows-server.smb2-credits-max',
    platform: 'windows-server',
    name: 'Smb2CreditsMax',
    location: 'Set-SmbServerConfiguration (HKLM\\SYSTEM\\CurrentControlSet\\Services\\LanmanServer\\Parameters)',
    type: 'integer',
    defaultValue: 8192,
    range: CREDIT_RANGE,
    versions: 'Windows Server 2008 (with the credit hotfix: up to 512) and later',
    source: `${WINDOWS_SMB_TUNING}; Set-SmbServerConfiguration`,
    command: (value) => `Set-SmbServerConfiguration -Smb2CreditsMax ${Number(value)} -Force`,
    effect: (setup, value) => withServerSmb2(setup, { creditsMax: Number(value) }),
    propose: (context) => {
      const needed = creditsFor(context, CREDIT_RANGE);
      return needed > context.setup.server.smb2.creditsMax ? needed : undefined;
    },
  },
  {
    id: 'windows-server.smb2-credits-min',
    platform: 'windows-server',
    name: 'Smb2CreditsMin',
    location: 'Set-SmbServerConfiguration (HKLM\\SYSTEM\\CurrentControlSet\\Services\\LanmanServer\\Parameters)',
    type: 'integer',
    defaultValue: 512,
    range: [128, 8192],
    versions: 'Windows Server 2008 and later',
    source: `${WINDOWS_SMB_TUNING}; Set-SmbServerConfiguration`,
    command: (value) => `Set-SmbServerConfiguration -Smb2CreditsMin ${Number(value)} -Force`,
    effect: (setup, value) => withServerSmb2(setup, { creditsInitial: Math.min(Number(value), setup.server.smb2.creditsMax) }),
  },
  {
    id: 'windows-server.max-mpx',
    platform: 'windows-server',
    name: 'MaxMpxCt',
    location: 'HKLM\\SYSTEM\\CurrentControlSet\\Services\\LanmanServer\\Parameters (REG_DWORD)',
    type: 'integer',
    defaultValue: 50,
    range: [50, 2048],
    versions: 'SMB1 only (Windows 2000 to Server 2016)',
    source: WINDOWS_SMB_TUNING,
    command: (value) => `Set-ItemProperty -Path 'HKLM:\\SYSTEM\\CurrentControlSet\\Services\\LanmanServer\\Parameters' -Name MaxMpxCt -Type DWord -Value ${Number(value)}`,
    effect: (setup, value) => withServer(setup, { smb1MaxMpx: Number(value) }),
    propose: (context) => {
      if (context.setup.client.protocol !== 'smb1') return undefined;
      const needed = clamp(Math.ceil((WINDOW_FACTOR * context.bdpBytes) / context.requestBytes), [50, 2048]);
      return needed > context.setup.server.smb1MaxMpx ? needed : undefined;
    },
  },
  // --- Samba ------------------------------------------------------------------------
  {
    id: 'samba.smb2-max-credits',
    platform: 'samba',
    name: 'smb2 max credits',
    location: 'smb.conf [global]',
    type: 'integer',
    defaultValue: 8192,
    range: SAMBA_CREDIT_RANGE,
    versions: 'Samba 3.6 and later',
    source: SMB_CONF,
    command: (value) => `smb2 max credits = ${Number(value)}`,
    effect: (setup, value) => withServerSmb2(setup, { creditsMax: Number(value), creditsInitial: Math.min(setup.server.smb2.creditsInitial, Number(value)) }),
    propose: (context) => {
      const needed = creditsFor(context, SAMBA_CREDIT_RANGE);
      return needed > context.setup.server.smb2.creditsMax ? needed : undefined;
    },
  },
  sambaRequestSizeKnob('read'),
  sambaRequestSizeKnob('write'),
  {
    id: 'samba.smb2-max-trans',
    platform: 'samba',
    name: 'smb2 max trans',
    location: 'smb.conf [global]',
    type: 'bytes',
    defaultValue: 8 * MIB,
    range: [64 * KIB, 8 * MIB],
    versions: 'Samba 3.6 and later (8 MiB default from 4.3)',
    source: SMB_CONF,
    caution: 'Bounds QUERY_DIRECTORY, IOCTL and QUERY_INFO replies, not reads or writes; the model counts directory listings in round trips, not bytes.',
    command: (value) => `smb2 max trans = ${Number(value)}`,
  },
  {
    id: 'samba.socket-options',
    platform: 'samba',
    name: 'socket options',
    location: 'smb.conf [global]',
    type: 'text',
    defaultValue: 'TCP_NODELAY',
    // Socket option names as smb.conf(5) lists them, each with an optional
    // numeric value, separated by single spaces: nothing that could end the line.
    pattern: /^[A-Z][A-Z_]{1,31}(=\d{1,10})?( [A-Z][A-Z_]{1,31}(=\d{1,10})?){0,15}$/,
    patternHint: 'option names such as TCP_NODELAY or SO_RCVBUF=131072, separated by spaces',
    versions: 'All Samba versions',
    source: SMB_CONF,
    caution: 'A fixed SO_RCVBUF or SO_SNDBUF turns off Linux receive and send buffer auto-tuning for smbd: the window stays at that size on every path.',
    command: (value) => `socket options = ${String(value)}`,
    // A fixed buffer pins smbd's window near that size (Linux doubles the
    // request and gives about half to payload); without one, the windows
    // auto-tune up to the host's maxima, as the Samba profile has them.
    effect: (setup, value) => {
      const fixed = (name: string) => {
        const match = new RegExp(`${name}=(\\d+)`).exec(String(value));
        return match?.[1] === undefined ? undefined : Number(match[1]);
      };
      const autoTuned = SERVER_PROFILES.samba.tcp;
      return withServerTcp(setup, {
        receiveWindowBytes: fixed('SO_RCVBUF') ?? Math.max(setup.server.tcp.receiveWindowBytes, autoTuned.receiveWindowBytes),
        sendWindowBytes: fixed('SO_SNDBUF') ?? Math.max(setup.server.tcp.sendWindowBytes, autoTuned.sendWindowBytes),
      });
    },
    propose: ({ setup, bdpBytes }) => (Math.min(setup.server.tcp.receiveWindowBytes, setup.server.tcp.sendWindowBytes) < Math.min(WINDOW_FACTOR * bdpBytes, 2 * MIB) ? 'TCP_NODELAY' : undefined),
  },
  {
    id: 'samba.aio-read-size',
    platform: 'samba',
    name: 'aio read size',
    location: 'smb.conf [share] or [global]',
    type: 'bytes',
    defaultValue: 1,
    range: [0, 8 * MIB],
    versions: 'Samba 4.x',
    source: SMB_CONF,
    caution: 'Asynchronous disk I/O: matters for slow disks, which the model does not see.',
    command: (value) => `aio read size = ${Number(value)}`,
  },
  {
    id: 'samba.aio-write-size',
    platform: 'samba',
    name: 'aio write size',
    location: 'smb.conf [share] or [global]',
    type: 'bytes',
    defaultValue: 1,
    range: [0, 8 * MIB],
    versions: 'Samba 4.x',
    source: SMB_CONF,
    caution: 'As aio read size.',
    command: (value) => `aio write size = ${Number(value)}`,
  },
  {
    id: 'samba.multi-channel',
    platform: 'samba',
    name: 'server multi channel support',
    location: 'smb.conf [global]',
    type: 'boolean',
    defaultValue: true,
    versions: 'Samba 4.15 and later (default yes from 4.15)',
    source: SMB_CONF,
    caution: 'Several TCP connections per session: helps when one connection cannot fill the link (loss, NIC queues); the model assumes one.',
    command: (value) => `server multi channel support = ${value === true ? 'yes' : 'no'}`,
  },
  // --- NetApp ONTAP ------------------------------------------------------------------
  {
    id: 'ontap.cifs-tcp-window-size',
    platform: 'ontap',
    name: 'cifs.tcp_window_size',
    location: '7-Mode options (filer console)',
    type: 'bytes',
    defaultValue: 17_520,
    range: ONTAP_WINDOW_RANGE,
    versions: 'Data ONTAP 7-Mode',
    source: 'NetApp TR-3869 (client-behaviour.md); Data ONTAP 7-Mode options reference',
    caution: 'Takes effect after a CIFS restart (cifs terminate; cifs restart), which disconnects every client.',
    command: (value) => `options cifs.tcp_window_size ${Number(value)}`,
    effect: (setup, value) => withServerTcp(setup, { receiveWindowBytes: Number(value) }),
    propose: ({ setup, bdpBytes }) => {
      const needed = clamp(roundUpTo(WINDOW_FACTOR * bdpBytes, 1460), ONTAP_WINDOW_RANGE);
      return needed > setup.server.tcp.receiveWindowBytes ? needed : undefined;
    },
  },
  {
    id: 'ontap.max-credits',
    platform: 'ontap',
    name: '-max-credits',
    location: 'vserver cifs options modify (advanced privilege)',
    type: 'integer',
    defaultValue: 128,
    range: ONTAP_CREDIT_RANGE,
    versions: 'Clustered ONTAP 8.3 and later',
    source: 'ONTAP command reference: vserver cifs options modify',
    command: (value) => `set -privilege advanced; vserver cifs options modify -vserver <svm> -max-credits ${Number(value)}`,
    effect: (setup, value) => withServerSmb2(setup, { creditsMax: Number(value), creditsInitial: Math.min(setup.server.smb2.creditsInitial, Number(value)) }),
    propose: (context) => {
      const needed = creditsFor(context, ONTAP_CREDIT_RANGE);
      return needed > context.setup.server.smb2.creditsMax ? needed : undefined;
    },
  },
  {
    id: 'ontap.large-mtu',
    platform: 'ontap',
    name: '-is-large-mtu-enabled',
    location: 'vserver cifs options modify (advanced privilege)',
    type: 'boolean',
    defaultValue: false,
    versions: 'Clustered ONTAP 8.3 and later (on by default from ONTAP 9)',
    source: 'ONTAP command reference: vserver cifs options modify',
    command: (value) => `set -privilege advanced; vserver cifs options modify -vserver <svm> -is-large-mtu-enabled ${value === true ? 'true' : 'false'}`,
    effect: (setup, value) => (value === true ? withServerSmb2(setup, { maxReadBytes: MIB, maxWriteBytes: MIB }) : setup),
    propose: ({ setup }) => (setup.client.largeMtu && setup.server.smb2.maxReadBytes <= 64 * KIB ? true : undefined),
  },
  // --- Linux (client, or the host of a Samba server) ---------------------------------
  {
    id: 'linux.tcp-rmem',
    platform: 'linux',
    name: 'net.ipv4.tcp_rmem',
    location: 'sysctl (/etc/sysctl.d/), per network namespace',
    type: 'bytes',
    defaultValue: 6 * MIB,
    range: LINUX_BUFFER_RANGE,
    versions: 'Linux 2.6 and later (the maximum, third field, is what limits a long fat pipe)',
    source: IP_SYSCTL,
    caution: 'net.core.rmem_max must be at least as large for applications that set SO_RCVBUF themselves.',
    command: (value) => `sysctl -w net.ipv4.tcp_rmem="4096 131072 ${Number(value)}"`,
    effect: (setup, value) => withClientTcp(setup, { receiveWindowBytes: Number(value) / 2 }),
    propose: (context) => (context.setup.client.tcp.receiveWindowBytes < WINDOW_FACTOR * context.bdpBytes ? linuxBufferFor(context, LINUX_BUFFER_RANGE) : undefined),
  },
  {
    id: 'linux.tcp-wmem',
    platform: 'linux',
    name: 'net.ipv4.tcp_wmem',
    location: 'sysctl (/etc/sysctl.d/), per network namespace',
    type: 'bytes',
    defaultValue: 4 * MIB,
    range: LINUX_BUFFER_RANGE,
    versions: 'Linux 2.6 and later (the maximum, third field)',
    source: IP_SYSCTL,
    command: (value) => `sysctl -w net.ipv4.tcp_wmem="4096 16384 ${Number(value)}"`,
    effect: (setup, value) => withClientTcp(setup, { sendWindowBytes: Number(value) / 2 }),
    propose: (context) => (context.setup.client.tcp.sendWindowBytes < WINDOW_FACTOR * context.bdpBytes ? linuxBufferFor(context, LINUX_BUFFER_RANGE) : undefined),
  },
  {
    id: 'linux.rmem-max',
    platform: 'linux',
    name: 'net.core.rmem_max',
    location: 'sysctl (/etc/sysctl.d/)',
    type: 'bytes',
    defaultValue: 212_992,
    range: LINUX_BUFFER_RANGE,
    versions: 'All Linux versions',
    source: IP_SYSCTL,
    caution: 'Caps SO_RCVBUF set by applications; auto-tuned sockets follow net.ipv4.tcp_rmem instead.',
    command: (value) => `sysctl -w net.core.rmem_max=${Number(value)}`,
  },
  {
    id: 'linux.wmem-max',
    platform: 'linux',
    name: 'net.core.wmem_max',
    location: 'sysctl (/etc/sysctl.d/)',
    type: 'bytes',
    defaultValue: 212_992,
    range: LINUX_BUFFER_RANGE,
    versions: 'All Linux versions',
    source: IP_SYSCTL,
    caution: 'Caps SO_SNDBUF set by applications; auto-tuned sockets follow net.ipv4.tcp_wmem instead.',
    command: (value) => `sysctl -w net.core.wmem_max=${Number(value)}`,
  },
  {
    id: 'linux.congestion-control',
    platform: 'linux',
    name: 'net.ipv4.tcp_congestion_control',
    location: 'sysctl (/etc/sysctl.d/), per network namespace',
    type: 'enum',
    defaultValue: 'cubic',
    values: ['reno', 'cubic', 'bbr'],
    versions: 'Linux 2.6.13 and later (bbr from 4.9)',
    source: IP_SYSCTL,
    caution: 'BBR copes better with loss on long paths; the model does not rank congestion controls.',
    command: (value) => `sysctl -w net.ipv4.tcp_congestion_control=${String(value)}`,
  },
  {
    id: 'linux.cifs-rsize',
    platform: 'linux',
    name: 'rsize',
    location: 'mount.cifs option',
    type: 'bytes',
    defaultValue: 4 * MIB,
    range: [64 * KIB, 8 * MIB],
    versions: 'Linux cifs.ko (4 MiB default from 5.x)',
    source: 'mount.cifs(8)',
    command: (value) => `mount -t cifs //server/share /mnt -o rsize=${Number(value)},...`,
    effect: (setup, value) => ({ ...setup, client: { ...setup.client, maxRequestBytes: { ...setup.client.maxRequestBytes, read: Number(value) } } }),
  },
  {
    id: 'linux.cifs-wsize',
    platform: 'linux',
    name: 'wsize',
    location: 'mount.cifs option',
    type: 'bytes',
    defaultValue: 4 * MIB,
    range: [64 * KIB, 8 * MIB],
    versions: 'Linux cifs.ko (4 MiB default from 5.x)',
    source: 'mount.cifs(8)',
    command: (value) => `mount -t cifs //server/share /mnt -o wsize=${Number(value)},...`,
    effect: (setup, value) => ({ ...setup, client: { ...setup.client, maxRequestBytes: { ...setup.client.maxRequestBytes, write: Number(value) } } }),
  },
  {
    id: 'linux.cifs-max-credits',
    platform: 'linux',
    name: 'max_credits',
    location: 'mount.cifs option',
    type: 'integer',
    defaultValue: 32_000,
    range: [20, 60_000],
    versions: 'Linux cifs.ko 3.8 and later',
    source: 'mount.cifs(8)',
    command: (value) => `mount -t cifs //server/share /mnt -o max_credits=${Number(value)},...`,
  },
  // --- macOS ----------------------------------------------------------------------------
  {
    id: 'macos.autorcvbufmax',
    platform: 'macos',
    name: 'net.inet.tcp.autorcvbufmax',
    location: 'sysctl (/etc/sysctl.conf)',
    type: 'bytes',
    defaultValue: 4 * MIB,
    range: [4 * MIB, 64 * MIB],
    versions: 'macOS 10.5 and later',
    source: 'xnu: bsd/netinet/tcp_subr.c (net.inet.tcp sysctls)',
    command: (value) => `sudo sysctl -w net.inet.tcp.autorcvbufmax=${Number(value)}`,
  },
  {
    id: 'macos.maxsockbuf',
    platform: 'macos',
    name: 'kern.ipc.maxsockbuf',
    location: 'sysctl (/etc/sysctl.conf)',
    type: 'bytes',
    defaultValue: 8 * MIB,
    range: [8 * MIB, 64 * MIB],
    versions: 'macOS 10.5 and later',
    source: 'xnu: kern.ipc sysctls',
    command: (value) => `sudo sysctl -w kern.ipc.maxsockbuf=${Number(value)}`,
  },
  {
    id: 'macos.nsmb-signing',
    platform: 'macos',
    name: 'signing_required',
    location: '/etc/nsmb.conf [default]',
    type: 'boolean',
    defaultValue: true,
    versions: 'macOS 10.13 and later',
    source: 'nsmb.conf(5)',
    caution: 'Turning signing off trades integrity for CPU; only where the network is trusted and the server does not require it.',
    command: (value) => `printf '[default]\\nsigning_required=${value === true ? 'yes' : 'no'}\\n' | sudo tee -a /etc/nsmb.conf`,
  },
  // --- The copy tool -------------------------------------------------------------------
  {
    id: 'copy-tool.robocopy-mt',
    platform: 'copy-tool',
    name: 'robocopy /MT:n',
    location: 'robocopy command line',
    type: 'integer',
    defaultValue: 1,
    range: [1, 128],
    versions: 'Windows 7 / Server 2008 R2 and later',
    source: 'Microsoft Learn: robocopy',
    caution: 'Copies n files at once: their round trips overlap. Not for a single large file.',
    command: (value) => `robocopy <source> <destination> /E /MT:${Number(value)}`,
    effect: (setup, value) => ({ ...setup, lanes: Number(value) }),
  },
  {
    id: 'copy-tool.robocopy-j',
    platform: 'copy-tool',
    name: 'robocopy /J',
    location: 'robocopy command line',
    type: 'boolean',
    defaultValue: false,
    versions: 'Windows 8 / Server 2012 and later',
    source: 'Microsoft Learn: robocopy',
    caution: 'Unbuffered I/O spares the client cache for very large files; the wire pattern, and so the model, is unchanged.',
    command: (value) => (value === true ? 'robocopy <source> <destination> <file> /J' : 'robocopy <source> <destination> <file>'),
  },
];

export function knob(id: string): Knob | undefined {
  return KNOBS.find((candidate) => candidate.id === id);
}

/** Which platform tunes the client side of this profile (none for Pipefill's own engine). */
export function clientPlatform(client: ClientProfileId): Platform | undefined {
  if (client === 'linux-cifs') return 'linux';
  if (client === 'pipefill-max') return undefined;
  return 'windows-client';
}

export function serverPlatform(server: ServerProfileId): Platform {
  if (server === 'samba') return 'samba';
  if (server.startsWith('netapp')) return 'ontap';
  return 'windows-server';
}
