// The catalogue of settings Pipefill knows: exact names, where each lives,
// its default, the range Pipefill will propose within, the versions it
// applies to, and where it is documented. Knobs the model can weigh carry
// `effect` (the profiles with the new value) and `propose` (the value this
// path needs); the others are listed for completeness and never proposed,
// since the model cannot show that they help.

import type { Observations } from '../model/server-as-seen.js';
import { windowHeldWrites } from '../model/server-as-seen.js';
import type { ClientProfile, ClientProfileId } from '../model/client-profiles.js';
import { KIB, MIB } from '../model/client-profiles.js';
import { BYTES_PER_CREDIT } from '../model/in-flight.js';
import type { Link } from '../model/link.js';
import type { ProtectionRequest } from '../model/negotiation.js';
import type { ServerProfile, ServerProfileId } from '../model/server-profiles.js';
import { SERVER_PROFILES } from '../model/server-profiles.js';

export type Platform = 'windows-client' | 'windows-server' | 'samba' | 'ontap' | 'linux' | 'macos' | 'copy-tool';
export type KnobValue = number | string | boolean;

/** The pair being tuned, how many files the copy tool moves at once, and the session's protection and connections. */
export interface Setup {
  readonly client: ClientProfile;
  readonly server: ServerProfile;
  readonly lanes: number;
  /** TCP connections per session (SMB 3 multichannel), as the pair's settings allow. */
  readonly channels: number;
  /** What the scenario asks of signing and encryption (`auto`: what the pair negotiates). */
  readonly request: ProtectionRequest;
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
  /**
   * The value the copies showed the server runs with, where they show one
   * (the most credits it granted): what `current` says when the setting
   * itself could not be read, rather than the knob's default.
   */
  observed?(seen: Observations): KnobValue | undefined;
  /**
   * A setting that protects the data (signing, encryption): what it costs is
   * shown, and Pipefill only ever proposes the stronger of its values
   * (`strongest`), never turning protection off to gain speed.
   */
  readonly protection?: { readonly strongest: KnobValue; readonly protects: string };
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
const withClientTcp = (setup: Setup, tcp: Partial<ClientProfile['tcp']>): Setup => ({
  ...setup,
  client: { ...setup.client, tcp: { ...setup.client.tcp, ...tcp } },
});

const WINDOWS_SMB_TUNING = 'Microsoft Learn: "Performance tuning for SMB file servers" (Windows Server)';
const WINDOWS_SMB_SECURITY =
  'Microsoft Learn: "SMB security enhancements", "Control SMB signing behavior"; Set-SmbClientConfiguration, Set-SmbServerConfiguration';
const MULTICHANNEL_SOURCE = 'Microsoft Learn: "SMB Multichannel"; Set-SmbClientConfiguration -ConnectionCountPerRssNetworkInterface (default 4)';

/** Connections per RSS interface Windows opens when both sides allow multichannel. */
const WINDOWS_CONNECTIONS_PER_INTERFACE = 4;
const SIGNING_PROTECTS = 'every message against tampering and NTLM relay';
const ENCRYPTION_PROTECTS = 'the data against eavesdropping and tampering';

/**
 * More connections help when a per-connection limit binds: crypto on one
 * core, a TCP window, loss, or a shallow router queue. Proposed only where
 * the server accepts multichannel and the pair speaks SMB 3.
 */
function multichannelHelps({ setup }: ProposalContext): boolean {
  return (
    setup.channels === 1 &&
    setup.server.security.multichannel &&
    setup.client.protocol === 'smb2' &&
    setup.client.offer.dialects.some((dialect) => dialect.startsWith('3'))
  );
}

const withChannels = (setup: Setup, channels: number): Setup => ({ ...setup, channels: setup.server.security.multichannel ? Math.max(1, channels) : 1 });

/** A cipher list with the GCM ciphers first: GCM costs a third of CCM per byte (crypto-cost.ts). */
const GCM_FIRST = 'AES-128-GCM, AES-256-GCM, AES-128-CCM, AES-256-CCM';
const CIPHER_LIST_PATTERN = /^AES-(128|256)-(GCM|CCM)(, ?AES-(128|256)-(GCM|CCM)){0,3}$/;
const GMAC_FIRST = 'AES-128-GMAC, AES-128-CMAC, HMAC-SHA256';
const SIGNING_LIST_PATTERN = /^(AES-128-GMAC|AES-128-CMAC|HMAC-SHA256)(, ?(AES-128-GMAC|AES-128-CMAC|HMAC-SHA256)){0,2}$/;
const listOf = (value: KnobValue) =>
  String(value)
    .split(',')
    .map((item) => item.trim());
/** True when a server accepts CCM but not GCM: a GCM-capable client then pays CCM's price. */
const serverLacksGcm = (setup: Setup) => setup.server.security.ciphers.length > 0 && !setup.server.security.ciphers.some((name) => name.endsWith('GCM'));
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
    propose: ({ setup }) =>
      setup.client.largeMtu && setup.server.smb2[field] < setup.client.maxRequestBytes[op] ? Math.min(8 * MIB, setup.client.maxRequestBytes[op]) : undefined,
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
    location:
      'HKLM\\SYSTEM\\CurrentControlSet\\Services\\LanmanWorkstation\\Parameters (REG_DWORD); Set-SmbClientConfiguration -EnableBandwidthThrottling on Windows 8 and later',
    type: 'integer',
    defaultValue: 0,
    range: [0, 1],
    versions: 'Windows Vista and later',
    source: WINDOWS_SMB_TUNING,
    command: (value) =>
      `Set-ItemProperty -Path 'HKLM:\\SYSTEM\\CurrentControlSet\\Services\\LanmanWorkstation\\Parameters' -Name DisableBandwidthThrottling -Type DWord -Value ${Number(value)}`,
    effect: (setup, value) => (Number(value) === 1 ? withServerSmb2(setup, { clientThrottleBytes: Infinity }) : setup),
    propose: ({ setup, bdpBytes }) => ((setup.server.smb2.clientThrottleBytes ?? Infinity) < WINDOW_FACTOR * bdpBytes ? 1 : undefined),
  },
  {
    id: 'windows-client.large-mtu',
    platform: 'windows-client',
    name: 'DisableLargeMtu',
    location:
      'HKLM\\SYSTEM\\CurrentControlSet\\Services\\LanmanWorkstation\\Parameters (REG_DWORD); Set-SmbClientConfiguration -EnableLargeMtu on Windows 8 and later',
    type: 'integer',
    defaultValue: 1,
    range: [0, 1],
    versions: 'Windows 7 / Server 2008 R2 (off by default there; on by default from Windows 8)',
    source: WINDOWS_SMB_TUNING,
    command: (value) =>
      `Set-ItemProperty -Path 'HKLM:\\SYSTEM\\CurrentControlSet\\Services\\LanmanWorkstation\\Parameters' -Name DisableLargeMtu -Type DWord -Value ${Number(value)}`,
    effect: (setup, value) =>
      Number(value) === 0 ? { ...setup, client: { ...setup.client, largeMtu: true, maxRequestBytes: { read: MIB, write: MIB } } } : setup,
    propose: ({ setup }) =>
      setup.client.protocol === 'smb2' && !setup.client.largeMtu && setup.client.dialect !== '2.0.2' && setup.server.smb2.maxReadBytes > 64 * KIB
        ? 0
        : undefined,
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
    command: (value) =>
      `Set-ItemProperty -Path 'HKLM:\\SYSTEM\\CurrentControlSet\\Services\\LanmanWorkstation\\Parameters' -Name FileInfoCacheEntriesMax -Type DWord -Value ${Number(value)}`,
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
    command: (value) =>
      `Set-ItemProperty -Path 'HKLM:\\SYSTEM\\CurrentControlSet\\Services\\LanmanWorkstation\\Parameters' -Name DirectoryCacheEntriesMax -Type DWord -Value ${Number(value)}`,
  },
  {
    id: 'windows-client.require-signing',
    platform: 'windows-client',
    name: 'RequireSecuritySignature',
    location: 'Set-SmbClientConfiguration (HKLM\\SYSTEM\\CurrentControlSet\\Services\\LanmanWorkstation\\Parameters)',
    type: 'boolean',
    defaultValue: false,
    versions: 'Windows Vista and later (on by default from Windows 11 24H2)',
    source: WINDOWS_SMB_SECURITY,
    protection: { strongest: true, protects: SIGNING_PROTECTS },
    caution:
      'Signing costs CPU on both ends for every byte (see the signing layer); Pipefill never proposes turning it off. Keep it, and let AES-GMAC (SMB 3.1.1) and multichannel carry the cost.',
    command: (value) => `Set-SmbClientConfiguration -RequireSecuritySignature $${value === true ? 'true' : 'false'} -Force`,
  },
  {
    id: 'windows-client.enable-multichannel',
    platform: 'windows-client',
    name: 'EnableMultiChannel',
    location: 'Set-SmbClientConfiguration',
    type: 'boolean',
    defaultValue: true,
    versions: 'Windows 8 / Server 2012 and later (needs an RSS-capable NIC for several connections on one interface)',
    source: MULTICHANNEL_SOURCE,
    command: (value) => `Set-SmbClientConfiguration -EnableMultiChannel $${value === true ? 'true' : 'false'} -Force`,
    effect: (setup, value) => withChannels(setup, value === true ? WINDOWS_CONNECTIONS_PER_INTERFACE : 1),
    propose: (context) => (multichannelHelps(context) ? true : undefined),
  },
  {
    id: 'windows-client.connection-count',
    platform: 'windows-client',
    name: 'ConnectionCountPerRssNetworkInterface',
    location: 'Set-SmbClientConfiguration',
    type: 'integer',
    defaultValue: WINDOWS_CONNECTIONS_PER_INTERFACE,
    range: [1, 16],
    versions: 'Windows 8 / Server 2012 and later',
    source: MULTICHANNEL_SOURCE,
    caution: 'Takes effect with multichannel on and an RSS-capable NIC; more than 8 rarely helps (Azure NetApp Files measured no gain past 4 on a LAN).',
    command: (value) => `Set-SmbClientConfiguration -ConnectionCountPerRssNetworkInterface ${Number(value)} -Force`,
    effect: (setup, value) => withChannels(setup, Number(value)),
  },
  {
    id: 'windows-client.encryption-ciphers',
    platform: 'windows-client',
    name: 'EncryptionCiphers',
    location: 'Set-SmbClientConfiguration',
    type: 'text',
    defaultValue: 'AES_128_GCM, AES_128_CCM, AES_256_GCM, AES_256_CCM',
    pattern: /^AES_(128|256)_(GCM|CCM)(, ?AES_(128|256)_(GCM|CCM)){0,3}$/,
    patternHint: 'cipher names such as AES_128_GCM, separated by commas',
    versions: 'Windows 11 and Server 2022 and later',
    source: WINDOWS_SMB_SECURITY,
    protection: { strongest: 'AES_128_GCM, AES_256_GCM, AES_128_CCM, AES_256_CCM', protects: ENCRYPTION_PROTECTS },
    caution: 'The order of preference the client offers; GCM before CCM keeps encryption and costs about a third of the CPU.',
    command: (value) => `Set-SmbClientConfiguration -EncryptionCiphers "${String(value)}" -Force`,
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
    observed: (seen) => seen.creditsGranted,
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
    command: (value) =>
      `Set-ItemProperty -Path 'HKLM:\\SYSTEM\\CurrentControlSet\\Services\\LanmanServer\\Parameters' -Name MaxMpxCt -Type DWord -Value ${Number(value)}`,
    effect: (setup, value) => withServer(setup, { smb1MaxMpx: Number(value) }),
    propose: (context) => {
      if (context.setup.client.protocol !== 'smb1') return undefined;
      const needed = clamp(Math.ceil((WINDOW_FACTOR * context.bdpBytes) / context.requestBytes), [50, 2048]);
      return needed > context.setup.server.smb1MaxMpx ? needed : undefined;
    },
  },
  {
    id: 'windows-server.require-signing',
    platform: 'windows-server',
    name: 'RequireSecuritySignature',
    location: 'Set-SmbServerConfiguration (HKLM\\SYSTEM\\CurrentControlSet\\Services\\LanmanServer\\Parameters)',
    type: 'boolean',
    defaultValue: false,
    versions: 'Windows Server 2008 and later (required on domain controllers; Windows 11 24H2 clients require it anyway)',
    source: WINDOWS_SMB_SECURITY,
    protection: { strongest: true, protects: SIGNING_PROTECTS },
    caution: 'Signing costs CPU on both ends for every byte; Pipefill never proposes turning it off.',
    command: (value) => `Set-SmbServerConfiguration -RequireSecuritySignature $${value === true ? 'true' : 'false'} -Force`,
    effect: (setup, value) => withServer(setup, { security: { ...setup.server.security, signingRequired: value === true } }),
  },
  {
    id: 'windows-server.encrypt-data',
    platform: 'windows-server',
    name: 'EncryptData',
    location: 'Set-SmbServerConfiguration (or Set-SmbShare -EncryptData per share)',
    type: 'boolean',
    defaultValue: false,
    versions: 'Windows Server 2012 and later',
    source: WINDOWS_SMB_SECURITY,
    protection: { strongest: true, protects: ENCRYPTION_PROTECTS },
    caution: 'Encryption costs CPU on both ends for every byte (more than signing with CCM, about as much with GCM); Pipefill never proposes turning it off.',
    command: (value) => `Set-SmbServerConfiguration -EncryptData $${value === true ? 'true' : 'false'} -Force`,
    effect: (setup, value) => withServer(setup, { security: { ...setup.server.security, encryptionRequired: value === true } }),
  },
  {
    id: 'windows-server.reject-unencrypted',
    platform: 'windows-server',
    name: 'RejectUnencryptedAccess',
    location: 'Set-SmbServerConfiguration',
    type: 'boolean',
    defaultValue: true,
    versions: 'Windows Server 2012 and later',
    source: WINDOWS_SMB_SECURITY,
    protection: { strongest: true, protects: 'encrypted shares from clients that cannot encrypt (SMB 2.x)' },
    caution: 'With EncryptData on, $true refuses SMB 2.x clients rather than let them read in clear; it costs no speed to the clients it lets in.',
    command: (value) => `Set-SmbServerConfiguration -RejectUnencryptedAccess $${value === true ? 'true' : 'false'} -Force`,
  },
  {
    id: 'windows-server.enable-multichannel',
    platform: 'windows-server',
    name: 'EnableMultiChannel',
    location: 'Set-SmbServerConfiguration',
    type: 'boolean',
    defaultValue: true,
    versions: 'Windows Server 2012 and later',
    source: MULTICHANNEL_SOURCE,
    command: (value) => `Set-SmbServerConfiguration -EnableMultiChannel $${value === true ? 'true' : 'false'} -Force`,
    effect: (setup, value) => withServer(setup, { security: { ...setup.server.security, multichannel: value === true } }),
  },
  {
    id: 'windows-server.encryption-ciphers',
    platform: 'windows-server',
    name: 'EncryptionCiphers',
    location: 'Set-SmbServerConfiguration',
    type: 'text',
    defaultValue: 'AES_128_GCM, AES_128_CCM, AES_256_GCM, AES_256_CCM',
    pattern: /^AES_(128|256)_(GCM|CCM)(, ?AES_(128|256)_(GCM|CCM)){0,3}$/,
    patternHint: 'cipher names such as AES_128_GCM, separated by commas',
    versions: 'Windows Server 2022 and later',
    source: WINDOWS_SMB_SECURITY,
    protection: { strongest: 'AES_128_GCM, AES_256_GCM, AES_128_CCM, AES_256_CCM', protects: ENCRYPTION_PROTECTS },
    caution: "The ciphers the server accepts; keeping GCM in the list keeps encryption at a third of CCM's CPU cost.",
    command: (value) => `Set-SmbServerConfiguration -EncryptionCiphers "${String(value)}" -Force`,
    effect: (setup, value) =>
      withServer(setup, { security: { ...setup.server.security, ciphers: listOf(String(value).replace(/_/g, '-')) as ServerProfile['security']['ciphers'] } }),
    propose: ({ setup }) => (serverLacksGcm(setup) ? 'AES_128_GCM, AES_256_GCM, AES_128_CCM, AES_256_CCM' : undefined),
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
    observed: (seen) => seen.creditsGranted,
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
    // A window that held the copies' writes is a fixed receive buffer, whatever smb.conf says: the default
    // (TCP_NODELAY) would otherwise be assumed, and the change that lifts the window never proposed.
    // The window as the setting the model reads it as (the effect below: a fixed SO_RCVBUF is the window), so the
    // value stays one smb.conf takes and a recommendations file carrying it passes the catalogue's checks
    // (src/apply/trusted.ts); the person reads it with ", as the copies saw it".
    observed: (seen) => (windowHeldWrites(seen) ? `SO_RCVBUF=${Math.round(seen.peerWindowBytes ?? 0)}` : undefined),
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
    propose: ({ setup, bdpBytes }) =>
      Math.min(setup.server.tcp.receiveWindowBytes, setup.server.tcp.sendWindowBytes) < Math.min(WINDOW_FACTOR * bdpBytes, 2 * MIB) ? 'TCP_NODELAY' : undefined,
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
    caution:
      'Several TCP connections per session: each has its own window and congestion control, so a shallow router queue, loss or a window limit binds less; smbd still signs and seals a session on one core.',
    command: (value) => `server multi channel support = ${value === true ? 'yes' : 'no'}`,
    effect: (setup, value) => withServer(setup, { security: { ...setup.server.security, multichannel: value === true } }),
    propose: ({ setup }) =>
      !setup.server.security.multichannel && setup.client.protocol === 'smb2' && setup.client.offer.dialects.includes('3.1.1') ? true : undefined,
  },
  {
    id: 'samba.server-signing',
    platform: 'samba',
    name: 'server signing',
    location: 'smb.conf [global]',
    type: 'enum',
    defaultValue: 'default',
    // testparm reads `mandatory` back as its synonym `required`: Pipefill writes what it reads.
    values: ['default', 'auto', 'desired', 'required', 'disabled'],
    versions: 'All Samba versions (SMB2 signing cannot be turned off; `disabled` means not offered)',
    source: SMB_CONF,
    protection: { strongest: 'required', protects: SIGNING_PROTECTS },
    caution:
      'required (mandatory): every client must sign (Windows 11 24H2 does anyway); costs CPU per byte on both ends. Pipefill never proposes a weaker value.',
    command: (value) => `server signing = ${String(value)}`,
    effect: (setup, value) => withServer(setup, { security: { ...setup.server.security, signingRequired: value === 'required' || value === 'mandatory' } }),
  },
  {
    id: 'samba.server-smb-encrypt',
    platform: 'samba',
    name: 'server smb encrypt',
    location: 'smb.conf [global] (or per share)',
    type: 'enum',
    defaultValue: 'default',
    values: ['default', 'off', 'if_required', 'desired', 'required'],
    versions: 'Samba 4.14 and later (`smb encrypt` before)',
    source: SMB_CONF,
    protection: { strongest: 'required', protects: ENCRYPTION_PROTECTS },
    caution: 'required: SMB 2.x clients are refused and every session is sealed; costs CPU per byte on both ends, on one smbd core per session.',
    command: (value) => `server smb encrypt = ${String(value)}`,
    effect: (setup, value) => withServer(setup, { security: { ...setup.server.security, encryptionRequired: value === 'required' } }),
  },
  {
    id: 'samba.encryption-algorithms',
    platform: 'samba',
    name: 'server smb3 encryption algorithms',
    location: 'smb.conf [global]',
    type: 'text',
    defaultValue: 'AES-128-GCM, AES-128-CCM, AES-256-GCM, AES-256-CCM',
    pattern: CIPHER_LIST_PATTERN,
    patternHint: 'cipher names such as AES-128-GCM, separated by commas',
    versions: 'Samba 4.14 and later',
    source: SMB_CONF,
    protection: { strongest: GCM_FIRST, protects: ENCRYPTION_PROTECTS },
    caution: 'Which SMB 3.1.1 ciphers smbd offers, in order; a list without GCM makes every client seal with CCM at three times the CPU.',
    command: (value) => `server smb3 encryption algorithms = ${String(value)}`,
    effect: (setup, value) => withServer(setup, { security: { ...setup.server.security, ciphers: listOf(value) as ServerProfile['security']['ciphers'] } }),
    propose: ({ setup }) => (serverLacksGcm(setup) ? GCM_FIRST : undefined),
  },
  {
    id: 'samba.signing-algorithms',
    platform: 'samba',
    name: 'server smb3 signing algorithms',
    location: 'smb.conf [global]',
    type: 'text',
    defaultValue: GMAC_FIRST,
    pattern: SIGNING_LIST_PATTERN,
    patternHint: 'algorithm names such as AES-128-GMAC, separated by commas',
    versions: 'Samba 4.14 and later (AES-128-GMAC from 4.15)',
    source: SMB_CONF,
    protection: { strongest: GMAC_FIRST, protects: SIGNING_PROTECTS },
    caution: 'Which SMB 3.1.1 signing algorithms smbd offers; without AES-128-GMAC every client signs with AES-CMAC at about six times the CPU.',
    command: (value) => `server smb3 signing algorithms = ${String(value)}`,
    // A copy that listed AES-128-GMAC first and was given another showed a server without it, whatever smb.conf says.
    observed: (seen) => (seen.signingChoice?.passedOver.includes('AES-128-GMAC') ? seen.signingChoice.chosen : undefined),
    effect: (setup, value) => withServer(setup, { security: { ...setup.server.security, signing: listOf(value) as ServerProfile['security']['signing'] } }),
    propose: ({ setup }) => (setup.server.security.signing.length > 0 && !setup.server.security.signing.includes('AES-128-GMAC') ? GMAC_FIRST : undefined),
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
    source: 'NetApp TR-3869 (2012); Data ONTAP 7-Mode options reference',
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
    observed: (seen) => seen.creditsGranted,
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
    propose: (context) =>
      context.setup.client.tcp.receiveWindowBytes < WINDOW_FACTOR * context.bdpBytes ? linuxBufferFor(context, LINUX_BUFFER_RANGE) : undefined,
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
    propose: (context) =>
      context.setup.client.tcp.sendWindowBytes < WINDOW_FACTOR * context.bdpBytes ? linuxBufferFor(context, LINUX_BUFFER_RANGE) : undefined,
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
  {
    id: 'linux.cifs-seal',
    platform: 'linux',
    name: 'seal',
    location: 'mount.cifs option (/etc/fstab)',
    type: 'boolean',
    defaultValue: false,
    versions: 'Linux cifs.ko 3.x and later (SMB 3.0 and later)',
    source: 'mount.cifs(8)',
    protection: { strongest: true, protects: ENCRYPTION_PROTECTS },
    caution: 'Encrypts the mount even where the server does not require it; costs CPU per byte on both ends. Pipefill never proposes removing it.',
    command: (value) => (value === true ? 'mount -t cifs //server/share /mnt -o seal,...' : 'mount -t cifs //server/share /mnt -o ... (without seal)'),
    effect: (setup, value) => (value === true ? { ...setup, request: 'encryption' } : setup),
  },
  {
    id: 'linux.cifs-multichannel',
    platform: 'linux',
    name: 'multichannel,max_channels',
    location: 'mount.cifs options (/etc/fstab)',
    type: 'integer',
    defaultValue: 1,
    range: [1, 16],
    versions: 'Linux cifs.ko 5.8 and later (SMB 3.x)',
    source: 'mount.cifs(8)',
    caution: 'The value is max_channels; 1 leaves multichannel off. Each channel is a TCP connection of its own.',
    command: (value) =>
      Number(value) > 1
        ? `mount -t cifs //server/share /mnt -o multichannel,max_channels=${Number(value)},...`
        : 'mount -t cifs //server/share /mnt -o ... (without multichannel)',
    effect: (setup, value) => withChannels(setup, Number(value)),
    propose: (context) => (multichannelHelps(context) ? WINDOWS_CONNECTIONS_PER_INTERFACE : undefined),
  },
  {
    id: 'linux.cifs-negotiate-signing',
    platform: 'linux',
    name: 'enable_negotiate_signing',
    location: 'cifs module parameter (/etc/modprobe.d/, or /sys/module/cifs/parameters/)',
    type: 'boolean',
    defaultValue: false,
    versions: 'Linux 5.19 and later',
    source: 'Linux fs/smb/client (cifsfs.c module parameters)',
    caution: 'Sends the SMB 3.1.1 signing-capabilities context, so a server that has it signs with AES-GMAC instead of AES-CMAC; signing stays on.',
    command: (value) => `echo ${value === true ? 'Y' : 'N'} > /sys/module/cifs/parameters/enable_negotiate_signing`,
    effect: (setup, value) =>
      value === true ? { ...setup, client: { ...setup.client, offer: { ...setup.client.offer, signing: ['AES-128-GMAC', 'AES-128-CMAC'] } } } : setup,
    propose: ({ setup }) =>
      setup.client.id === 'linux-cifs' && setup.client.offer.signing.length === 0 && setup.server.security.signing.includes('AES-128-GMAC') ? true : undefined,
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
    protection: { strongest: true, protects: SIGNING_PROTECTS },
    caution: 'Signing costs CPU per byte on both ends; Pipefill never proposes turning it off.',
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
