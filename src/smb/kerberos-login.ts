// A Kerberos logon over SESSION_SETUP (MS-SMB2 3.2.5.3, MS-KILE 3.1.5):
// the AP-REQ from the platform's Kerberos in Pipefill's SPNEGO, the
// server's AP-REP back into it (mutual authentication: it carries the
// acceptor's subkey), the mechListMIC where the server sends or asks for
// one, and the session key from the complete context. Every Kerberos
// failure a person can fix is a one-line error with its fix.

import { heldTicketPrincipal } from '../platform/kerberos-ticket.js';
import type { SmbResponse } from './request-frames.js';
import { SmbError } from './errors.js';
import type { GssContext, GssFailure, GssFailureKind } from './native-gssapi.js';
import { gssapiAddon, isGssFailure } from './native-gssapi.js';
import { Status } from './protocol.js';
import { negTokenInit, negTokenRespWithMic, OFFERED_MECH_TYPES, parseNegTokenResp, SpnegoError } from './security/spnego.js';

/** Sends one SESSION_SETUP with `blob` and returns the reply (success or more-processing) and its security blob. */
export type SetupStep = (blob: Buffer, what: string) => Promise<{ response: SmbResponse; blob: Buffer }>;

export interface KerberosLogin {
  /** The server's name as the person typed it: the service principal is cifs/<host>. */
  readonly host: string;
  /** user@REALM; absent: the ticket cache's own principal. */
  readonly principal?: string;
  /** Absent: the person's existing ticket (their logon, or kinit). */
  readonly password?: string;
}

export interface KerberosResult {
  readonly final: SmbResponse;
  /** MS-SMB2 3.2.5.3: the first 16 bytes of the context's key, zero-padded where shorter. */
  readonly sessionKey: Buffer;
  /** The principal the ticket was for. */
  readonly principal: string;
}

/** Legs a Kerberos logon may take: AP-REQ, then a mechListMIC exchange at most. */
const MAX_LEGS = 3;
/**
 * How long one step of the platform's Kerberos may take: the first asks the
 * KDC for tickets, and a KDC that does not answer (or a DNS that does not)
 * holds the library for as long as its own retries last. Past this, the
 * domain controller counts as unreachable (NTLMv2 may still work); the
 * library's thread finishes on its own.
 */
export const KERBEROS_STEP_MS = 8_000;

/** MS-SMB2 3.2.5.3: "the first 16 bytes of the cryptographic key ... right-padded with zero bytes if less than 16 bytes". */
export function smbSessionKey(contextKey: Buffer): Buffer {
  const key = Buffer.alloc(16);
  contextKey.copy(key, 0, 0, Math.min(16, contextKey.length));
  return key;
}

/** What each Kerberos failure means for the person, with its fix; `fallsBack` where NTLM may still work. */
const MEANINGS: Record<GssFailureKind, { kind: 'auth-failed' | 'kerberos' | 'integrity'; say: string; fix: string; fallsBack: boolean }> = {
  'wrong-password': { kind: 'auth-failed', say: 'the KDC refused the password', fix: 'Check the password (and Caps Lock).', fallsBack: false },
  'unknown-user': { kind: 'auth-failed', say: 'the KDC knows no such user', fix: 'Check the user name and the realm after @.', fallsBack: false },
  'no-service-principal': {
    kind: 'kerberos',
    say: 'the domain has no service principal for this server name',
    fix: 'Use the server name the domain knows (its DNS name, not an alias or address), or register the alias: setspn -S cifs/<alias> <server>.',
    fallsBack: true,
  },
  'clock-skew': {
    kind: 'kerberos',
    say: 'the clocks of this computer, the server and the domain controller differ by more than Kerberos allows (5 minutes by default)',
    fix: "Set the clock that is off from the domain's time source (w32tm /resync on Windows; chrony or timedatectl elsewhere).",
    fallsBack: false,
  },
  'ticket-expired': {
    kind: 'kerberos',
    say: 'the Kerberos ticket has expired',
    fix: 'Get a new ticket (lock and unlock Windows, or kinit), or give the password.',
    fallsBack: false,
  },
  'password-expired': { kind: 'auth-failed', say: "the account's password has expired", fix: 'Change the password, then run again.', fallsBack: false },
  'account-locked': { kind: 'auth-failed', say: 'the account is locked or disabled', fix: 'Ask the domain administrator to unlock it.', fallsBack: false },
  'kdc-unreachable': {
    kind: 'kerberos',
    say: 'no domain controller (KDC) for the realm could be reached',
    fix: "Check the realm after @, that this computer can reach a domain controller on port 88, and krb5.conf's [realms] (or DNS SRV records).",
    fallsBack: true,
  },
  'no-realm': {
    kind: 'kerberos',
    say: 'no Kerberos realm is known for this login',
    fix: 'Type the user as user@REALM or DOMAIN\\user, or set default_realm in krb5.conf.',
    fallsBack: true,
  },
  'no-ticket': {
    kind: 'kerberos',
    say: 'there is no Kerberos ticket to use and no password was given',
    fix: 'Log on to the domain (or run kinit), or give the password.',
    fallsBack: true,
  },
  // Set here, not by the addon: the cache holds a ticket, but for someone else (another user, another realm).
  'other-ticket': {
    kind: 'kerberos',
    say: 'the Kerberos ticket held is for another principal',
    fix: "Run as the ticket's principal to use it (--user exactly as the ticket names it), or give this user's password, or kinit as this user.",
    fallsBack: true,
  },
  'bad-reply': {
    kind: 'integrity',
    say: "the server's Kerberos reply does not verify",
    fix: 'Something between Pipefill and the server changed the login, or the server holds an old key for its name.',
    fallsBack: false,
  },
  'kerberos-failed': {
    kind: 'kerberos',
    say: 'Kerberos failed',
    fix: "The library's message above says why; krb5.conf and the KDC's log may say more.",
    fallsBack: false,
  },
};

/** A Kerberos failure as a typed error; `kerberosFallsBack` tells the caller whether NTLM may still work. */
export class KerberosError extends SmbError {
  constructor(
    readonly failure: GssFailureKind,
    detail: string,
    status?: number,
    options?: { cause?: unknown },
  ) {
    const meaning = MEANINGS[failure];
    super(meaning.kind, `Kerberos logon failed: ${meaning.say} (${detail}).`, meaning.fix, status, options);
    this.reason = `${meaning.say} (${detail})`;
  }

  /** What went wrong, without the "Kerberos logon failed" before it: for a result that says why NTLMv2 was used. */
  readonly reason: string;

  get fallsBack(): boolean {
    return MEANINGS[this.failure].fallsBack;
  }
}

function fromGss(error: GssFailure, login: KerberosLogin, heldPrincipal: () => string | undefined): KerberosError {
  const who = login.principal ?? 'the ticket cache';
  // No ticket for this principal, but one for another (a user@OTHER.REALM typed while holding the domain's ticket):
  // say whose ticket is held, rather than that there is none (issue 50, item 9).
  const held = error.kind === 'no-ticket' && login.password === undefined ? heldPrincipal() : undefined;
  if (held !== undefined && held.toLowerCase() !== login.principal?.toLowerCase())
    return new KerberosError('other-ticket', `the ticket held is for ${held}, not ${who}; for cifs/${login.host}: ${error.message}`, undefined, {
      cause: error,
    });
  return new KerberosError(error.kind, `${who} for cifs/${login.host}: ${error.message}`, undefined, { cause: error });
}

/** Server statuses that carry a Kerberos meaning (MS-KILE 3.4.5.1; Samba and Windows answer these). */
const STATUS_MEANINGS = new Map<number, GssFailureKind>([[Status.timeDifferenceAtDc, 'clock-skew']]);

/**
 * Runs the logon. Fails with a KerberosError (its `fallsBack` says whether
 * NTLM may still work) or the server's own SmbError.
 */
export async function kerberosLogon(login: KerberosLogin, step: SetupStep): Promise<KerberosResult> {
  const addon = gssapiAddon();
  if (!addon.available) throw new KerberosError('kerberos-failed', `Kerberos is not available here: ${addon.reason}`);
  const context: GssContext = new addon.addon.Context({
    target: `cifs@${login.host}`,
    ...(login.principal === undefined ? {} : { principal: login.principal }),
    ...(login.password === undefined ? {} : { password: login.password }),
  });
  const gss = async (token: Buffer | null) => {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(
        () => reject(new KerberosError('kdc-unreachable', `no answer from the KDC within ${KERBEROS_STEP_MS / 1000} s for cifs/${login.host}`)),
        KERBEROS_STEP_MS,
      );
    });
    try {
      return await Promise.race([context.step(token), late]);
    } catch (error) {
      if (!isGssFailure(error)) throw error;
      // Reading the server's AP-REP asks the KDC nothing: an integrity failure there (KRB5KRB_AP_ERR_BAD_INTEGRITY,
      // which in the first step's ticket exchange means a wrong password) is the server's reply failing its check.
      throw fromGss(
        token !== null && error.kind === 'wrong-password' ? Object.assign(error, { kind: 'bad-reply' as const }) : error,
        login,
        heldTicketPrincipal,
      );
    } finally {
      clearTimeout(timer);
    }
  };
  const first = await gss(null);
  let blob = negTokenInit(first.token);
  let complete = first.complete;
  for (let leg = 0; leg < MAX_LEGS; leg++) {
    const reply = await step(blob, `login as ${login.principal ?? 'the ticket cache'} (Kerberos)`).catch((error: unknown) => {
      const failure = error instanceof SmbError && error.status !== undefined ? STATUS_MEANINGS.get(error.status) : undefined;
      if (failure !== undefined && error instanceof SmbError)
        throw new KerberosError(failure, `the server answered status 0x${(error.status ?? 0).toString(16).padStart(8, '0')}`, error.status, { cause: error });
      throw error;
    });
    let answer;
    try {
      answer = parseNegTokenResp(reply.blob);
    } catch (error) {
      if (!(error instanceof SpnegoError)) throw error;
      throw new SmbError('protocol', `The server's SPNEGO reply is not valid: ${error.message}.`, 'The server or something on the path is misbehaving.');
    }
    if (answer.negState === 'reject' || answer.kerberosChosen === false)
      throw new KerberosError('kerberos-failed', 'the server rejected the Kerberos logon in its SPNEGO reply');
    if (answer.responseToken !== undefined && answer.responseToken.length > 0 && !complete) complete = (await gss(answer.responseToken)).complete;
    if (answer.mechListMic !== undefined) {
      if (!complete) throw new SmbError('protocol', 'The server sent a mechListMIC before the Kerberos logon completed.', 'The server is misbehaving.');
      if (!context.verifyMic(OFFERED_MECH_TYPES, answer.mechListMic))
        throw new SmbError('integrity', "The server's SPNEGO mechListMIC does not verify.", 'Something between Pipefill and the server changed the login.');
    }
    if (reply.response.header.status === Status.success) {
      // Mutual authentication: a server that says "done" without its AP-REP has not proved who it is.
      if (!complete) throw new KerberosError('bad-reply', 'the server ended the logon without its AP-REP');
      return { final: reply.response, sessionKey: smbSessionKey(context.sessionKey()), principal: context.initiator() ?? login.principal ?? '' };
    }
    // More processing: the server asks for the client's mechListMIC (RFC 4178 5).
    if (!complete) throw new SmbError('protocol', 'The server asked for more after the Kerberos AP-REQ without an AP-REP.', 'The server is misbehaving.');
    blob = negTokenRespWithMic(context.getMic(OFFERED_MECH_TYPES));
  }
  throw new SmbError('protocol', `The server's Kerberos logon did not end after ${MAX_LEGS} legs.`, 'The server is misbehaving.');
}
