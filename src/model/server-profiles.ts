// What the server allows: SMB2 credits, largest read/write, SMB1 multiplex
// count, and its TCP windows (the receive window bounds writes, the send
// window bounds reads). Sources as in client-profiles.ts.

import { KIB, MIB } from './client-profiles.js';
import type { CongestionControl } from './congestion.js';
import type { CryptoSide } from './crypto-cost.js';
import { PUBLISHED_X86_RATES } from './crypto-cost.js';
import type { CipherName, DialectName, SigningAlgorithm } from './smb-security.js';

export const SERVER_PROFILE_IDS = [
  'netapp-tr3869',
  'netapp-7mode-default',
  'win2008-rtm',
  'win2008-qfe',
  'win2012plus',
  'win2022',
  'win2025',
  'azure-files',
  'samba',
] as const;
export type ServerProfileId = (typeof SERVER_PROFILE_IDS)[number];

export interface ServerProfile {
  readonly id: ServerProfileId;
  readonly label: string;
  readonly smb2: {
    /** Credits a new session starts with; the server grants more as requests ask (one doubling per round trip). */
    readonly creditsInitial: number;
    readonly creditsMax: number;
    /** Largest read / write the server negotiates (64 KB for SMB 2.0.2-only servers). */
    readonly maxReadBytes: number;
    readonly maxWriteBytes: number;
    /**
     * A cap on bytes in flight that the client imposes on itself against this
     * server (Vista RTM's bandwidth-estimate credit throttle with Server 2008 RTM).
     */
    readonly clientThrottleBytes?: number;
  };
  /** SMB1 MaxMpxCount: outstanding requests a client may have. */
  readonly smb1MaxMpx: number;
  readonly tcp: {
    readonly receiveWindowBytes: number;
    readonly sendWindowBytes: number;
    readonly initialWindowSegments: number;
    /** See ClientTcp.idleRestartRtts: the server sends the data of reads. */
    readonly idleRestartRtts?: number;
    /** The congestion control that paces what the server sends (the data of reads). */
    readonly congestion: CongestionControl;
  };
  /** What the server accepts and insists on when a client negotiates. */
  readonly security: ServerSecurity;
  /** What signing and encryption cost the server's CPU. */
  readonly crypto: CryptoSide;
}

export interface ServerSecurity {
  readonly dialects: readonly DialectName[];
  /** SMB 3.1.1 signing algorithms it accepts (2.x always signs with HMAC-SHA256, 3.0 and 3.0.2 with AES-128-CMAC). */
  readonly signing: readonly SigningAlgorithm[];
  readonly ciphers: readonly CipherName[];
  /** Signing required of every client (RequireSecuritySignature, `server signing = mandatory`). */
  readonly signingRequired: boolean;
  /** Encryption required of every session (EncryptData, `server smb encrypt = required`, Azure's secure transfer). */
  readonly encryptionRequired: boolean;
  /** Whether it accepts SMB 3 multichannel sessions. */
  readonly multichannel: boolean;
}

/** A window that no realistic link fills: the layer is not modelled as a limit. */
const UNBOUNDED = Infinity;

/**
 * Windows Server 2008 and later: receive-window auto-tuning up to 16 MB, IW 2
 * until 2012. Server 2008 to 2016 send with Compound TCP on their default
 * template, 2019 and later with CUBIC (Microsoft Networking blog, 2017).
 */
const WINDOWS_SERVER_TCP = { receiveWindowBytes: 16 * MIB, sendWindowBytes: 16 * MIB, initialWindowSegments: 2, congestion: 'compound' } as const;

const WINDOWS_CRYPTO: CryptoSide = { rates: PUBLISHED_X86_RATES, scalesWithChannels: true };
/**
 * smbd serves every channel of a session in one process: its crypto stays
 * on one core however many connections there are. GnuTLS with AES-NI.
 */
const SAMBA_CRYPTO: CryptoSide = { rates: PUBLISHED_X86_RATES, scalesWithChannels: false };

/** SMB 2.0.2 only, as servers of 2008 and the filer of TR-3869 spoke it: HMAC-SHA256 signing when asked, no encryption. */
const SMB2_ONLY: ServerSecurity = { dialects: ['2.0.2'], signing: [], ciphers: [], signingRequired: false, encryptionRequired: false, multichannel: false };

/** Windows Server 2022 and 2025: every dialect, AES-GMAC signing and the AES-256 ciphers (Microsoft Learn, "SMB security enhancements"). */
const WINDOWS_2022_SECURITY: ServerSecurity = {
  dialects: ['2.0.2', '2.1', '3.0', '3.0.2', '3.1.1'],
  signing: ['AES-128-GMAC', 'AES-128-CMAC', 'HMAC-SHA256'],
  ciphers: ['AES-128-GCM', 'AES-128-CCM', 'AES-256-GCM', 'AES-256-CCM'],
  signingRequired: false,
  encryptionRequired: false,
  multichannel: true,
};

/**
 * RFC 3390's initial window, min(4 x MSS, max(2 x MSS, 4380 bytes)): three
 * segments at a 1460-byte MSS. The filer of 2012 predates RFC 6928's ten.
 */
const RFC3390_INITIAL_SEGMENTS = 3;

/** Windows' default SMB1 MaxMpxCt (LanmanServer). */
const WINDOWS_MAX_MPX = 50;

const WIN2022: ServerProfile = {
  id: 'win2022',
  label: 'Windows Server 2022 (AES-GMAC signing, AES-256 ciphers)',
  smb2: { creditsInitial: 512, creditsMax: 8192, maxReadBytes: 8 * MIB, maxWriteBytes: 8 * MIB },
  smb1MaxMpx: WINDOWS_MAX_MPX,
  tcp: { ...WINDOWS_SERVER_TCP, initialWindowSegments: 10, congestion: 'cubic' },
  security: WINDOWS_2022_SECURITY,
  crypto: WINDOWS_CRYPTO,
};

export const SERVER_PROFILES: Readonly<Record<ServerProfileId, ServerProfile>> = {
  'netapp-tr3869': {
    id: 'netapp-tr3869',
    label: 'NetApp Data ONTAP, cifs.tcp_window_size 2096560 (TR-3869)',
    // The FAS3140 of TR-3869 spoke SMB 2.0 (64 KB requests). Credits: ONTAP's
    // default grant of 128.
    smb2: { creditsInitial: 128, creditsMax: 128, maxReadBytes: 64 * KIB, maxWriteBytes: 64 * KIB },
    smb1MaxMpx: WINDOWS_MAX_MPX,
    // cifs.tcp_window_size is the filer's receive window (it bounds writes);
    // its reads were not window-bound: Windows 7 SMB2 read 100 MB over GbE in
    // about 1 s, more than 2 MB in flight at 32 ms (tr3869-32ms.json).
    tcp: { receiveWindowBytes: 2_096_560, sendWindowBytes: UNBOUNDED, initialWindowSegments: RFC3390_INITIAL_SEGMENTS, congestion: 'reno' },
    security: SMB2_ONLY,
    crypto: WINDOWS_CRYPTO,
  },
  'netapp-7mode-default': {
    id: 'netapp-7mode-default',
    label: 'NetApp Data ONTAP 7-Mode, default cifs.tcp_window_size 17520',
    smb2: { creditsInitial: 128, creditsMax: 128, maxReadBytes: 64 * KIB, maxWriteBytes: 64 * KIB },
    smb1MaxMpx: WINDOWS_MAX_MPX,
    // TR-3869: the default 17520-byte window "hid any difference between clients".
    tcp: { receiveWindowBytes: 17_520, sendWindowBytes: UNBOUNDED, initialWindowSegments: RFC3390_INITIAL_SEGMENTS, congestion: 'reno' },
    security: SMB2_ONLY,
    crypto: WINDOWS_CRYPTO,
  },
  'win2008-rtm': {
    id: 'win2008-rtm',
    label: 'Windows Server 2008 RTM (credits 16 to 128, client throttle)',
    smb2: {
      creditsInitial: 16,
      creditsMax: 128,
      maxReadBytes: 64 * KIB,
      maxWriteBytes: 64 * KIB,
      // Pinkerton 2008: the client's throttle held a 2008 RTM pair near
      // 250 Mb/s at 100 ms / 1 Gb/s, i.e. 250e6 / 8 x 0.1 s = 3.1 MB in flight.
      clientThrottleBytes: 3_125_000,
    },
    smb1MaxMpx: WINDOWS_MAX_MPX,
    tcp: WINDOWS_SERVER_TCP,
    security: SMB2_ONLY,
    crypto: WINDOWS_CRYPTO,
  },
  'win2008-qfe': {
    id: 'win2008-qfe',
    label: 'Windows Server 2008 with the credit hotfix (max 512)',
    // "A hotfix raised the maximum to 512 and fixed the throttle."
    smb2: { creditsInitial: 16, creditsMax: 512, maxReadBytes: 64 * KIB, maxWriteBytes: 64 * KIB },
    smb1MaxMpx: WINDOWS_MAX_MPX,
    tcp: WINDOWS_SERVER_TCP,
    security: SMB2_ONLY,
    crypto: WINDOWS_CRYPTO,
  },
  win2012plus: {
    id: 'win2012plus',
    label: 'Windows Server 2012 and later (Smb2CreditsMax 8192)',
    // Set-SmbServerConfiguration defaults: Smb2CreditsMin 512, Smb2CreditsMax 8192;
    // SMB 3 negotiates 8 MB reads and writes (clients ask for 1 MB).
    smb2: { creditsInitial: 512, creditsMax: 8192, maxReadBytes: 8 * MIB, maxWriteBytes: 8 * MIB },
    smb1MaxMpx: WINDOWS_MAX_MPX,
    tcp: { ...WINDOWS_SERVER_TCP, initialWindowSegments: 10 },
    // Server 2016's SMB 3.1.1: AES-128-GCM and CCM, AES-CMAC signing.
    security: {
      dialects: ['2.0.2', '2.1', '3.0', '3.0.2', '3.1.1'],
      signing: ['AES-128-CMAC', 'HMAC-SHA256'],
      ciphers: ['AES-128-GCM', 'AES-128-CCM'],
      signingRequired: false,
      encryptionRequired: false,
      multichannel: true,
    },
    crypto: WINDOWS_CRYPTO,
  },
  win2022: WIN2022,
  // Server 2025 requires signing when it is the client; as a file server it
  // requires it only as a domain controller (Ned Pyle, "SMB security
  // hardening in Windows Server 2025 & Windows 11", 2024): as a server it
  // negotiates as 2022 does.
  win2025: { ...WIN2022, id: 'win2025', label: 'Windows Server 2025 (signing required on its own outbound connections)' },
  'azure-files': {
    id: 'azure-files',
    label: 'Azure Files share (SMB 3.x, encryption in transit required)',
    // Pipefill's assumptions where Azure publishes nothing: Windows Server's
    // credits and 1 MiB requests (the large MTU Windows clients ask for).
    smb2: { creditsInitial: 512, creditsMax: 8192, maxReadBytes: 1 * MIB, maxWriteBytes: 1 * MIB },
    smb1MaxMpx: WINDOWS_MAX_MPX,
    tcp: { ...WINDOWS_SERVER_TCP, initialWindowSegments: 10, congestion: 'cubic' },
    // "Secure transfer required" (the default): SMB 3.x with encryption;
    // channel encryption AES-128-CCM, AES-128-GCM, AES-256-GCM; multichannel
    // on premium shares (Microsoft Learn, "SMB file shares in Azure Files";
    // Azure Storage SmbSetting.channelEncryption).
    security: {
      dialects: ['3.0', '3.0.2', '3.1.1'],
      signing: ['AES-128-GMAC', 'AES-128-CMAC'],
      ciphers: ['AES-128-GCM', 'AES-128-CCM', 'AES-256-GCM'],
      signingRequired: false,
      encryptionRequired: true,
      multichannel: true,
    },
    crypto: WINDOWS_CRYPTO,
  },
  samba: {
    id: 'samba',
    label: 'Samba (smb2 max credits 8192, Linux TCP auto-tuning)',
    // smb.conf defaults: smb2 max credits = 8192, smb2 max read / write = 8 MiB;
    // max mux = 50.
    smb2: { creditsInitial: 512, creditsMax: 8192, maxReadBytes: 8 * MIB, maxWriteBytes: 8 * MIB },
    smb1MaxMpx: 50,
    // Linux defaults (tcp_rmem max 6 MiB, tcp_wmem max 4 MiB), about half of
    // each buffer usable for payload; IW 10. The lab raises both maxima.
    tcp: { receiveWindowBytes: 3 * MIB, sendWindowBytes: 2 * MIB, initialWindowSegments: 10, congestion: 'cubic' },
    // Samba 4.17 defaults: every dialect to 3.1.1, AES-GMAC signing from
    // 4.15, all four ciphers, `server signing = default` (required only as
    // an AD DC), `server smb encrypt = default`, `server multi channel
    // support = yes` from 4.15 (smb.conf(5)).
    security: {
      dialects: ['2.0.2', '2.1', '3.0', '3.0.2', '3.1.1'],
      signing: ['AES-128-GMAC', 'AES-128-CMAC', 'HMAC-SHA256'],
      ciphers: ['AES-128-GCM', 'AES-128-CCM', 'AES-256-GCM', 'AES-256-CCM'],
      signingRequired: false,
      encryptionRequired: false,
      multichannel: true,
    },
    crypto: SAMBA_CRYPTO,
  },
};
