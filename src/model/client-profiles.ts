// How each client generation moves a file: the copy engine's pipeline, the
// redirector's request size, the client's TCP windows and the metadata round
// trips around every file. Figures come from Pinkerton, "SMB Version 2:
// Scaling from Kilobits to Gigabits" (SDC 2008) and NetApp TR-3869 (2012)
// unless a comment says otherwise (reference/README.md lists the sources).
// Values fitted to TR-3869's Robocopy times are marked FITTED and are kept
// few: see calibration.test.ts for the fit and its errors.

import type { MetadataSequences, RoundTrip } from './metadata.js';
import type { CongestionControl } from './congestion.js';
import type { CryptoSide } from './crypto-cost.js';
import { PUBLISHED_X86_RATES } from './crypto-cost.js';
import type { SecurityOffer } from './smb-security.js';
import { PIPEFILL_OFFER, WINDOWS_10_11_OFFER, WINDOWS_11_24H2_OFFER } from './smb-security.js';

export type Op = 'read' | 'write';

export const KIB = 1024;
export const MIB = 1024 * 1024;

/** One row of a copy-engine table: files up to `upToFileBytes` use `depth` chunks of `chunkBytes` in flight. */
export interface PipelineRow {
  readonly upToFileBytes: number;
  readonly depth: number;
  /** `file-size`: the whole file in one chunk, rounded up to the 512-byte sector (Vista RTM, small files). */
  readonly chunkBytes: number | 'file-size';
}

export type CopyPipeline =
  | { readonly kind: 'table'; readonly rows: readonly PipelineRow[] }
  /**
   * Pipefill's own engine: as many requests of the largest size the server
   * allows as it takes to hold `bdpMultiple` x BDP in flight, within the
   * server's credits and never fewer than `minDepth`.
   */
  | { readonly kind: 'fill-bdp'; readonly bdpMultiple: number; readonly minDepth: number; readonly maxDepth: number };

export const CLIENT_PROFILE_IDS = ['xp-smb1', 'win7-smb1', 'vista-smb2', 'win7-smb2', 'win10-smb3', 'win11-24h2', 'linux-cifs', 'pipefill-max'] as const;
export type ClientProfileId = (typeof CLIENT_PROFILE_IDS)[number];
/** The client a person's users have when they do not say: the current Windows release. */
export const DEFAULT_CLIENT: ClientProfileId = 'win11-24h2';

export interface ClientTcp {
  /** Largest receive window the client advertises (bytes): bounds reads. */
  readonly receiveWindowBytes: number;
  /** Largest amount the client keeps unacknowledged when it sends (bytes): bounds writes. */
  readonly sendWindowBytes: number;
  /** Initial congestion window in segments, for the slow-start ramp of writes. */
  readonly initialWindowSegments: number;
  readonly timestamps: boolean;
  /** The congestion control that paces what the client sends (its writes). */
  readonly congestion: CongestionControl;
  /**
   * Extra round trips the sender takes to send a burst larger than its
   * initial window when nothing is in flight (a synchronous request). Linux
   * BBR: 0.5, measured in the lab (a 64 KiB exchange at 32 ms took 48.5 ms
   * under BBR, 36.0 ms under Reno, whose 1 RTT + 3.4 ms serialisation the
   * model already gives). Absent: 0.
   */
  readonly idleRestartRtts?: number;
}

export interface ClientProfile {
  readonly id: ClientProfileId;
  readonly label: string;
  readonly protocol: 'smb1' | 'smb2';
  /** The dialect the client negotiates with a current server. */
  readonly dialect: string;
  readonly pipeline: { readonly read: CopyPipeline; readonly write: CopyPipeline };
  /** Largest single SMB request the redirector sends, before the server's limit applies. */
  readonly maxRequestBytes: { readonly read: number; readonly write: number };
  /** SMB 2.1 "large MTU": requests over 64 KB, charged ceil(size / 64 KB) credits. */
  readonly largeMtu: boolean;
  readonly tcp: ClientTcp;
  /**
   * Round trips one synchronous request costs, from the copy engine issuing
   * it to its completion. 1 for every client except XP (see there).
   */
  readonly roundTripsPerRequest: { readonly read: number; readonly write: number };
  readonly metadata: MetadataSequences;
  /** What the client offers when it negotiates: dialects, ciphers, signing (src/model/smb-security.ts). */
  readonly offer: SecurityOffer;
  /** What signing and encryption cost its CPU (src/model/crypto-cost.ts). */
  readonly crypto: CryptoSide;
}

// --- Copy-engine tables ------------------------------------------------------

export const SECTOR_BYTES = 512;

/** Vista RTM, SMB2 (Pinkerton 2008, the Vista RTM table). */
const TABLE_A: readonly PipelineRow[] = [
  { upToFileBytes: 1 * MIB, depth: 1, chunkBytes: 'file-size' },
  { upToFileBytes: 8 * MIB, depth: 2, chunkBytes: 1 * MIB },
  { upToFileBytes: 256 * MIB, depth: 4, chunkBytes: 2 * MIB },
  { upToFileBytes: Infinity, depth: 4, chunkBytes: 8 * MIB },
];

/** Vista SP1 / Windows 7 / Server 2008, SMB2 (Pinkerton 2008, the Vista SP1 table). */
const TABLE_B: readonly PipelineRow[] = [
  { upToFileBytes: 512 * KIB, depth: 8, chunkBytes: 128 * KIB },
  { upToFileBytes: 2 * MIB, depth: 8, chunkBytes: 256 * KIB },
  { upToFileBytes: 8 * MIB, depth: 8, chunkBytes: 512 * KIB },
  { upToFileBytes: Infinity, depth: 8, chunkBytes: 1 * MIB },
];

const fixed = (depth: number, chunkBytes: number): CopyPipeline => ({
  kind: 'table',
  rows: [{ upToFileBytes: Infinity, depth, chunkBytes }],
});
const table = (rows: readonly PipelineRow[]): CopyPipeline => ({ kind: 'table', rows });

// --- Metadata round trips ------------------------------------------------------
// FITTED: the number of round trips per file is fitted to TR-3869's directory
// tests (tr3869-32ms.json: read-dir-1GB, write-dir-1GB), where 300 files at
// 32 ms leave 45-190 s that the data alone does not explain. The op names are
// what Robocopy's trace shows for each exchange; the counts are the fit:
//   SMB1 read 9, SMB1 write 19, SMB2 read 3, SMB2 write 18 round trips.
// Writes cost about twice the round trips of reads for every client: Robocopy
// checks the destination, creates, sizes, writes, stamps times and attributes,
// and re-opens to verify; SMB2's compounding saves reads more than writes.
// Directory costs are small beside these (14 directories against 300 files).

const SMB1_READ_PER_FILE: RoundTrip[] = [
  ['query-info'], // TRANS2_QUERY_PATH_INFORMATION: basic info from the listing's entry
  ['query-info'], // ...standard info (size)
  ['create'], // NT_CREATE_ANDX for read
  ['query-info'], // TRANS2_QUERY_FILE_INFORMATION: basic
  ['query-info'], // ...standard
  ['query-info'], // ...stream / EA info
  ['query-info'], // ...attribute tag
  ['query-info'], // TRANS2_QUERY_FS_INFORMATION: volume attributes
  ['close'],
];

const SMB1_WRITE_PER_FILE: RoundTrip[] = [
  ['query-directory'], // does the destination exist (FIND_FIRST2)? It does not.
  ['query-info'], // TRANS2_QUERY_PATH_INFORMATION on it: not found
  ['create'], // NT_CREATE_ANDX, overwrite-if: the handle the data goes through
  ['query-info'], // basic
  ['query-info'], // standard
  ['set-info'], // allocation size
  ['set-info'], // end of file
  // ... the data ...
  ['flush'], // after the last write
  ['set-info'], // last-write and creation times
  ['close'],
  ['create'], // re-open to set attributes
  ['set-info'], // attributes
  ['close'],
  ['query-info'], // Robocopy's read-back of times and size, by path
  ['query-info'],
  ['create'], // and a handle for the source-destination comparison
  ['query-info'],
  ['query-info'],
  ['close'],
];

const SMB2_READ_PER_FILE: RoundTrip[] = [
  ['create', 'query-info'], // open compounded with the first query
  ['query-info'], // standard / stream info
  ['close'],
];

const SMB2_WRITE_PER_FILE: RoundTrip[] = [
  ['create', 'query-info'], // does the destination exist? It does not.
  ['create'], // overwrite-if: the handle the data goes through
  ['query-info'], // basic
  ['query-info'], // standard
  ['set-info'], // allocation size
  ['set-info'], // end of file
  // ... the data ...
  ['flush'], // after the last write
  ['set-info'], // times
  ['close'],
  ['create'], // re-open to set attributes
  ['set-info'],
  ['close'],
  ['create', 'query-info'], // Robocopy's read-back of times and size
  ['query-info'],
  ['close'],
  ['create', 'query-info'], // and the source-destination comparison
  ['query-info'],
  ['close'],
];

// SMB1's TRANS2_FIND_FIRST2 opens, lists and (with close-at-end) closes in one
// exchange; SMB2 compounds the open with the first QUERY_DIRECTORY, and needs
// a second one to learn the listing ended, then a close.
const SMB1_DIRECTORY_LISTING: RoundTrip[] = [['query-info'], ['query-directory']];
const SMB2_DIRECTORY_LISTING: RoundTrip[] = [['create', 'query-directory'], ['query-directory'], ['close']];
/** Does it exist (it does not), make it, close the handle. */
const DIRECTORY_CREATION: RoundTrip[] = [['create', 'query-info'], ['create-directory'], ['close']];

const SMB1_METADATA: MetadataSequences = {
  readPerFile: SMB1_READ_PER_FILE,
  writePerFile: SMB1_WRITE_PER_FILE,
  readPerDirectory: SMB1_DIRECTORY_LISTING,
  writePerDirectory: DIRECTORY_CREATION,
};

const SMB2_METADATA: MetadataSequences = {
  readPerFile: SMB2_READ_PER_FILE,
  writePerFile: SMB2_WRITE_PER_FILE,
  readPerDirectory: SMB2_DIRECTORY_LISTING,
  writePerDirectory: DIRECTORY_CREATION,
};

/**
 * Pipefill's own copy: open, move the data, close; nothing a copy does not
 * need. It knows the names it moves, so it lists no directory, and it makes a
 * directory and closes the handle in one compound.
 */
const PIPEFILL_METADATA: MetadataSequences = {
  readPerFile: [['create'], ['close']],
  writePerFile: [['create'], ['close']],
  readPerDirectory: [],
  writePerDirectory: [['create-directory', 'close']],
};

// --- TCP -----------------------------------------------------------------------

/**
 * Windows XP: no receive-window auto-tuning and no window scaling by default,
 * so the window stops at 64 KB (TR-3869: XP's TCP receive window
 * is small and cannot be configured).
 */
const XP_TCP: ClientTcp = { receiveWindowBytes: 65_535, sendWindowBytes: 65_535, initialWindowSegments: 2, timestamps: false, congestion: 'reno' };

/**
 * Vista and later: receive-window auto-tuning up to 16 MB (Pinkerton 2008,
 * on Vista's TCP). Windows 7 starts with 2 segments (RFC 3390's 4 KB rule rounded down
 * at a 1460-byte MSS); Windows 10 with 10 (RFC 6928), its default since 2017.
 */
const WIN7_TCP: ClientTcp = { receiveWindowBytes: 16 * MIB, sendWindowBytes: 16 * MIB, initialWindowSegments: 2, timestamps: false, congestion: 'reno' };
/**
 * Windows 10 1709 and later send with CUBIC by default (Microsoft
 * Networking blog, "CUBIC for Windows", 2017); earlier clients NewReno.
 */
const WIN10_TCP: ClientTcp = { ...WIN7_TCP, initialWindowSegments: 10, congestion: 'cubic' };

/**
 * Linux defaults: net.ipv4.tcp_rmem max 6 MiB, tcp_wmem max 4 MiB; about half
 * of a socket buffer carries payload (tcp_adv_win_scale / the kernel's
 * scaling ratio), IW 10 (RFC 6928), timestamps on.
 */
const LINUX_TCP: ClientTcp = { receiveWindowBytes: 3 * MIB, sendWindowBytes: 2 * MIB, initialWindowSegments: 10, timestamps: true, congestion: 'cubic' };

/** Windows' kernel crypto (CNG, AES-NI): per-connection work lands on the core its RSS queue maps to. */
const WINDOWS_CRYPTO: CryptoSide = { rates: PUBLISHED_X86_RATES, scalesWithChannels: true };
/** cifs.ko uses the kernel's AES-NI code; each channel's receive work runs on its own socket's softirq core. */
const LINUX_CRYPTO: CryptoSide = { rates: PUBLISHED_X86_RATES, scalesWithChannels: true };

// --- Profiles ------------------------------------------------------------------

const WIN10_SMB3: ClientProfile = {
  id: 'win10-smb3',
  label: 'Windows 10/11, SMB3',
  protocol: 'smb2',
  dialect: '3.1.1',
  // No published table after Vista SP1; the copy engine's large-file row
  // (8 x 1 MB) is kept, each chunk now one 1 MB large-MTU request.
  pipeline: { read: table(TABLE_B), write: table(TABLE_B) },
  maxRequestBytes: { read: 1 * MIB, write: 1 * MIB },
  largeMtu: true,
  tcp: WIN10_TCP,
  roundTripsPerRequest: { read: 1, write: 1 },
  metadata: SMB2_METADATA,
  offer: WINDOWS_10_11_OFFER,
  crypto: WINDOWS_CRYPTO,
};

export const CLIENT_PROFILES: Readonly<Record<ClientProfileId, ClientProfile>> = {
  'xp-smb1': {
    id: 'xp-smb1',
    label: 'Windows XP, SMB1',
    protocol: 'smb1',
    dialect: 'NT LM 0.12',
    // "synchronous, 60 KB per request, 1 outstanding" (reads), "64 KB" (writes).
    pipeline: { read: fixed(1, 60 * KIB), write: fixed(1, 64 * KIB) },
    maxRequestBytes: { read: 60 * KIB, write: 64 * KIB },
    largeMtu: false,
    tcp: XP_TCP,
    // FITTED, from a published rate rather than a time: TR-3869 saw "about 20
    // CIFS ops/s from XP" during a 100 MB read at 32 ms, i.e. 50 ms a read =
    // 1.56 round trips. A 60 KB reply nearly fills XP's 64 KB window, so part
    // of each reply waits on the ACKs of the first part. Writes, sent into the
    // filer's 2 MB window, cost 1.1 (write-100MB: 57 s for 1600 writes at GbE).
    roundTripsPerRequest: { read: 1.56, write: 1.1 },
    metadata: SMB1_METADATA,
    // SMB1 is emulated over SMB2 (src/copy/drivers.ts): the lowest dialects, never SMB 3.
    offer: { dialects: ['2.0.2', '2.1'], ciphers: [], signing: [], signingRequired: false, movesUp: true },
    crypto: WINDOWS_CRYPTO,
  },
  'win7-smb1': {
    id: 'win7-smb1',
    label: 'Windows 7, SMB1',
    protocol: 'smb1',
    dialect: 'NT LM 0.12',
    // "async 32 KB requests, 16 outstanding", both directions.
    pipeline: { read: fixed(16, 32 * KIB), write: fixed(16, 32 * KIB) },
    maxRequestBytes: { read: 32 * KIB, write: 32 * KIB },
    largeMtu: false,
    tcp: WIN7_TCP,
    roundTripsPerRequest: { read: 1, write: 1 },
    metadata: SMB1_METADATA,
    offer: { dialects: ['2.0.2', '2.1'], ciphers: [], signing: [], signingRequired: false, movesUp: true },
    crypto: WINDOWS_CRYPTO,
  },
  'vista-smb2': {
    id: 'vista-smb2',
    label: 'Windows Vista RTM, SMB2',
    protocol: 'smb2',
    dialect: '2.0.2',
    pipeline: { read: table(TABLE_A), write: table(TABLE_A) },
    // SMB 2.0.2 caps a request at 64 KB; the redirector splits chunks.
    maxRequestBytes: { read: 64 * KIB, write: 64 * KIB },
    largeMtu: false,
    tcp: WIN7_TCP,
    roundTripsPerRequest: { read: 1, write: 1 },
    metadata: SMB2_METADATA,
    // Vista RTM speaks SMB 2.0.2 only.
    offer: { dialects: ['2.0.2'], ciphers: [], signing: [], signingRequired: false, movesUp: true },
    crypto: WINDOWS_CRYPTO,
  },
  'win7-smb2': {
    id: 'win7-smb2',
    label: 'Windows 7, SMB2',
    protocol: 'smb2',
    dialect: '2.1',
    pipeline: { read: table(TABLE_B), write: table(TABLE_B) },
    // TR-3869: "Windows 7 SMB2 64 KB". Windows 7 speaks SMB 2.1 but ships with
    // large MTU off (LanmanWorkstation DisableLargeMtu = 1).
    maxRequestBytes: { read: 64 * KIB, write: 64 * KIB },
    largeMtu: false,
    tcp: WIN7_TCP,
    roundTripsPerRequest: { read: 1, write: 1 },
    metadata: SMB2_METADATA,
    offer: { dialects: ['2.0.2', '2.1'], ciphers: [], signing: [], signingRequired: false, movesUp: true },
    crypto: WINDOWS_CRYPTO,
  },
  'win10-smb3': WIN10_SMB3,
  // The copy engine and redirector of Windows 10/11; what changed in 24H2 is
  // what it negotiates: signing required for every connection, in and out
  // (Ned Pyle, "SMB security hardening in Windows Server 2025 & Windows 11",
  // Microsoft Tech Community, 2024).
  'win11-24h2': { ...WIN10_SMB3, id: 'win11-24h2', label: 'Windows 11 24H2, SMB 3.1.1 (signing required)', offer: WINDOWS_11_24H2_OFFER },
  'linux-cifs': {
    id: 'linux-cifs',
    label: 'Linux cifs.ko (cp)',
    protocol: 'smb2',
    dialect: '3.1.1',
    // Pipefill's reading of cifs.ko, not a published table: rsize/wsize
    // default to 4 MiB; readahead keeps about one rsize ahead of the reader
    // (2 requests in flight), writeback about 4 wsize requests.
    pipeline: { read: fixed(2, 4 * MIB), write: fixed(4, 4 * MIB) },
    maxRequestBytes: { read: 4 * MIB, write: 4 * MIB },
    largeMtu: true,
    tcp: LINUX_TCP,
    roundTripsPerRequest: { read: 1, write: 1 },
    // cp stats, opens, moves data, closes: the SMB2 sequence without Robocopy's extras.
    metadata: {
      readPerFile: [['create', 'query-info'], ['close']],
      writePerFile: [['create'], ['set-info'], ['close']],
      readPerDirectory: SMB2_DIRECTORY_LISTING,
      writePerDirectory: DIRECTORY_CREATION,
    },
    // vers=default: SMB 2.1 or later; AES-128-GCM before CCM, no signing context
    // unless enable_negotiate_signing is set (Linux 6.x fs/smb/client).
    offer: { dialects: ['2.1', '3.0', '3.0.2', '3.1.1'], ciphers: ['AES-128-GCM', 'AES-128-CCM'], signing: [], signingRequired: false, movesUp: false },
    crypto: LINUX_CRYPTO,
  },
  'pipefill-max': {
    id: 'pipefill-max',
    label: 'Pipefill, best pipeline',
    protocol: 'smb2',
    dialect: '3.1.1',
    // Twice the BDP in flight so that neither a late ACK nor a slow reply
    // drains the pipe; at least 4 reads and 6 writes even on a LAN, where
    // the BDP is less than one request and what keeps the server busy is
    // the requests queued behind the one it is writing. The CLI's copy-test
    // write on loopback (256 MiB, 2 MiB requests, smbd on tmpfs, 12 and 10
    // alternating rounds, 2026-11-24): 6 in flight 1723 MB/s against 4 in
    // flight 1395 (smbclient put 1370), faster in 10 of 12 rounds; 8 in
    // flight 1556 against 6 in flight 1655.
    pipeline: {
      read: { kind: 'fill-bdp', bdpMultiple: 2, minDepth: 4, maxDepth: 256 },
      write: { kind: 'fill-bdp', bdpMultiple: 2, minDepth: 6, maxDepth: 256 },
    },
    // Measured (smbd 4.17 on loopback, tmpfs, medians of 7): reads, 4 MiB
    // requests beat 8 MiB ones by 10-20%, since smbd can work on one while
    // the next arrives; below 1 MiB per-request costs show again. Writes
    // (before the floor of 6 above), 4 x 2 MiB in flight beat 8 x 4 MiB by about 5% (1441 vs 1366 and
    // 1493 vs 1395 MB/s in two runs; 2 x 4 MiB 1295, 8 x 1 MiB 1303): smaller
    // buffers are still in cache when the socket copies them.
    maxRequestBytes: { read: 4 * MIB, write: 2 * MIB },
    largeMtu: true,
    tcp: LINUX_TCP,
    roundTripsPerRequest: { read: 1, write: 1 },
    metadata: PIPEFILL_METADATA,
    offer: PIPEFILL_OFFER,
    // Pipefill's own figures replace these when it drives a copy (an assessment measures them).
    crypto: LINUX_CRYPTO,
  },
};
