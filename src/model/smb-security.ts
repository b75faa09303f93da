// The names of what SMB 2.x and 3.x clients negotiate: dialects, ciphers and
// signing algorithms, and what one client offers. Pure data, so the profiles
// (here), the engine (src/smb) and the reports all speak of them alike; the
// wire ids live in src/smb/security/algorithms.ts.

/** Bytes of the TRANSFORM_HEADER in front of every encrypted message (MS-SMB2 2.2.41). */
export const TRANSFORM_HEADER_BYTES = 52;

export const DIALECTS = ['2.0.2', '2.1', '3.0', '3.0.2', '3.1.1'] as const;
export type DialectName = (typeof DIALECTS)[number];

export const CIPHERS = ['AES-128-CCM', 'AES-128-GCM', 'AES-256-CCM', 'AES-256-GCM'] as const;
export type CipherName = (typeof CIPHERS)[number];

export const SIGNING_ALGORITHMS = ['HMAC-SHA256', 'AES-128-CMAC', 'AES-128-GMAC'] as const;
export type SigningAlgorithm = (typeof SIGNING_ALGORITHMS)[number];

/**
 * What a client offers in its NEGOTIATE, each list in its order of
 * preference, and whether it insists on signing.
 */
export interface SecurityOffer {
  readonly dialects: readonly DialectName[];
  /** SMB 3.1.1 encryption capabilities; 3.0 and 3.0.2 have AES-128-CCM only. */
  readonly ciphers: readonly CipherName[];
  /** SMB 3.1.1 signing capabilities; empty sends none (the server then signs with AES-128-CMAC). */
  readonly signing: readonly SigningAlgorithm[];
  /** SecurityMode SIGNING_REQUIRED, as Windows 11 24H2 sends by default. */
  readonly signingRequired: boolean;
  /**
   * A generation Pipefill emulates over SMB2 (XP, 7) or one from before SMB 3
   * (Vista, 7): when the server refuses its dialects (server min protocol,
   * encryption required) the test copy moves up to SMB 3 and says so, rather
   * than measuring nothing.
   */
  readonly movesUp: boolean;
  /**
   * Refuses a session the server made a guest one (a mistyped user under
   * Samba's `map to guest = Bad User`): Windows 10 (1709 on) and 11 refuse
   * insecure guest logons by default (AllowInsecureGuestAuth off; Microsoft
   * Learn, "Guest access in SMB2 and SMB3 disabled by default in Windows").
   */
  readonly refusesGuest?: boolean;
  /** Set on an offer Pipefill made in a generation's place after the server refused its own dialects (movedUpOffer): those dialects. */
  readonly movedUpFrom?: readonly DialectName[];
}

/**
 * Windows 10 (1903 and later) and 11: every dialect; AES-128-GCM first, then
 * CCM, and the AES-256 ciphers Windows 11 and Server 2022 added; AES-128-GMAC
 * signing (Windows 11, Server 2022) before AES-CMAC. Microsoft Learn, "SMB
 * security enhancements" and "Overview of SMB signing" (2023-2025).
 */
export const WINDOWS_10_11_OFFER: SecurityOffer = {
  dialects: ['2.0.2', '2.1', '3.0', '3.0.2', '3.1.1'],
  ciphers: ['AES-128-GCM', 'AES-128-CCM', 'AES-256-GCM', 'AES-256-CCM'],
  signing: ['AES-128-GMAC', 'AES-128-CMAC'],
  signingRequired: false,
  movesUp: false,
  refusesGuest: true,
};

/**
 * Pipefill's own offer: every dialect and algorithm, cheapest first (GCM and
 * GMAC cost a fraction of CCM and CMAC per byte). The log-on's default, and
 * what it offers to learn what a server would pick.
 */
export const PIPEFILL_OFFER: SecurityOffer = {
  dialects: ['2.0.2', '2.1', '3.0', '3.0.2', '3.1.1'],
  ciphers: ['AES-128-GCM', 'AES-256-GCM', 'AES-128-CCM', 'AES-256-CCM'],
  signing: ['AES-128-GMAC', 'AES-128-CMAC', 'HMAC-SHA256'],
  signingRequired: false,
  movesUp: false,
};

/** What a moved-up old generation offers: its own dialects, then SMB 3 as Windows 10/11 offers it. */
export function movedUpOffer(offer: SecurityOffer): SecurityOffer {
  const dialects = [...new Set([...offer.dialects, ...WINDOWS_10_11_OFFER.dialects])];
  return {
    ...WINDOWS_10_11_OFFER,
    dialects,
    signingRequired: offer.signingRequired,
    movesUp: false,
    refusesGuest: offer.refusesGuest ?? false,
    movedUpFrom: offer.dialects,
  };
}

/**
 * Windows 11 24H2: the offer of Windows 10/11 with signing required on
 * every outbound connection (Microsoft Learn, "Control SMB signing
 * behavior"; Ned Pyle, "SMB security hardening in Windows Server 2025 &
 * Windows 11", 2024).
 */
export const WINDOWS_11_24H2_OFFER: SecurityOffer = { ...WINDOWS_10_11_OFFER, signingRequired: true };
