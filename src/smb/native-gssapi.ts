// Pipefill's Kerberos addon (native/gssapi, over the platform's GSS-API:
// MIT krb5 on Linux). Loaded once; where it is not built (no libkrb5-dev,
// another OS), Kerberos is unavailable and the reason says why.

import type { AddonLoad } from '../platform/native-addon.js';
import { addonPath, loadAddon } from '../platform/native-addon.js';

/** One Kerberos security context (see native/gssapi/src/addon.cc). */
export interface GssContext {
  /** The next token: the first call gets the credentials and the service ticket (it may talk to the KDC, on a worker thread). */
  step(token: Buffer | null): Promise<{ token: Buffer; complete: boolean }>;
  /** The context's session key, once complete (MS-SMB2 3.2.5.3). */
  sessionKey(): Buffer;
  /** The principal the ticket is for, once the first step has run. */
  initiator(): string | undefined;
  getMic(data: Buffer): Buffer;
  verifyMic(data: Buffer, mic: Buffer): boolean;
}

export interface GssapiAddon {
  Context: {
    new (options: { target: string; principal?: string; password?: string }): GssContext;
    /** krb5.conf's default_realm, or undefined where none is set. */
    defaultRealm(): string | undefined;
  };
}

/** What a Kerberos failure means, as the addon classifies the library's error code. */
export type GssFailureKind =
  | 'wrong-password'
  | 'unknown-user'
  | 'no-service-principal'
  | 'clock-skew'
  | 'ticket-expired'
  | 'password-expired'
  | 'account-locked'
  | 'kdc-unreachable'
  | 'no-realm'
  | 'no-ticket'
  | 'other-ticket'
  | 'bad-reply'
  | 'kerberos-failed';

/** A rejected step's error: the library's words in `message`, its meaning in `kind`. */
export interface GssFailure extends Error {
  readonly kind: GssFailureKind;
  readonly major: number;
  readonly minor: number;
}

export const isGssFailure = (error: unknown): error is GssFailure =>
  error instanceof Error && typeof (error as { kind?: unknown }).kind === 'string' && typeof (error as { major?: unknown }).major === 'number';

let loaded: AddonLoad<GssapiAddon> | undefined;

/** The Kerberos addon, or why it is not here. */
export function gssapiAddon(): AddonLoad<GssapiAddon> {
  loaded ??= loadAddon<GssapiAddon>(
    addonPath('gssapi', 'pipefill_gssapi'),
    "Pipefill's Kerberos addon",
    "where MIT Kerberos's headers are installed (libkrb5-dev)",
  );
  return loaded;
}
