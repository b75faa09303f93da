// The share and login options that copy-test and probe both take.

import type { ShareLogin } from '../contract/share-login.js';
import { PipefillInputError } from '../model/errors.js';
import { parseLoginName } from '../model/login-name.js';
import { formatSharePath, parseSharePath, shareTarget } from '../model/share-path.js';
import { optional, required } from './args.js';
import { readPassword } from './password.js';
import { holdsKerberosTicket } from '../platform/kerberos-ticket.js';
import { isIP } from 'node:net';

export const SHARE_LOGIN_OPTIONS = {
  share: { type: 'string' },
  user: { type: 'string' },
  'password-env': { type: 'string' },
  domain: { type: 'string' },
  signing: { type: 'string' },
  encrypt: { type: 'boolean' },
  'no-encrypt': { type: 'boolean' },
  kerberos: { type: 'boolean' },
  ntlm: { type: 'boolean' },
  address: { type: 'string' },
} as const;

/** The usage line of the signing and encryption options, for every command that opens a share. */
export const SECURITY_USAGE = '[--signing auto|required] [--encrypt | --no-encrypt] [--kerberos | --ntlm] [--address IP]';

/** How a person logs on, for the usage text of every command that opens a share. */
export const LOGIN_HELP = `  --user: alice, CORP\\alice or alice@corp.example.com. Kerberos where it can work (the server by its name,
  with the password or your own ticket: a ticket you hold, from kinit or a domain logon, is used with no
  password asked), NTLMv2 where it cannot (the result says why); --kerberos insists on Kerberos, --ntlm uses NTLMv2 only. --address IP connects there, the server keeping its name (smbclient -I).
  A FOLDER after the share (//fs01/projects/team/scratch) is where Pipefill works, for people who may write only there.`;

/** --signing, --encrypt and --no-encrypt as the contract's fields; a bad value or both encryption flags are an input error. */
function securityOptions(values: Record<string, unknown>): Pick<ShareLogin, 'signing' | 'encryption'> {
  const signing = optional(values, 'signing');
  if (signing !== undefined && signing !== 'auto' && signing !== 'required') {
    throw new PipefillInputError(
      `--signing must be auto or required, not ${JSON.stringify(signing)}.`,
      'auto signs when the server or the client profile requires it; required signs every message.',
    );
  }
  if (values['encrypt'] === true && values['no-encrypt'] === true) {
    throw new PipefillInputError(
      '--encrypt and --no-encrypt contradict each other.',
      'Give one: --encrypt asks for SMB 3 encryption; --no-encrypt stops where a server or share requires it.',
    );
  }
  const encryption = values['encrypt'] === true ? 'required' : values['no-encrypt'] === true ? 'off' : undefined;
  return { ...(signing === undefined ? {} : { signing }), ...(encryption === undefined ? {} : { encryption }) };
}

/** --kerberos or --ntlm as the contract's auth; both is an input error. */
function authOption(values: Record<string, unknown>): Pick<ShareLogin, 'auth'> {
  if (values['kerberos'] === true && values['ntlm'] === true)
    throw new PipefillInputError(
      '--kerberos and --ntlm contradict each other.',
      'Give one, or neither: Pipefill uses Kerberos where it can work and NTLMv2 where it cannot.',
    );
  return values['kerberos'] === true ? { auth: 'kerberos' } : values['ntlm'] === true ? { auth: 'ntlm' } : {};
}

/** The share (canonical form), user (checked: alice, CORP\\alice or alice@REALM), domain, address, logon and protection, without the password yet. */
export function shareLoginOptions(values: Record<string, unknown>): Omit<ShareLogin, 'password'> {
  const domain = optional(values, 'domain');
  const address = optional(values, 'address');
  const user = required(values, 'user', 'alice');
  parseLoginName(user, domain);
  const share = formatSharePath(parseSharePath(required(values, 'share', '//fileserver/projects')));
  if (address !== undefined) shareTarget({ share, address });
  return {
    share,
    user,
    ...(domain === undefined ? {} : { domain }),
    ...(address === undefined ? {} : { address }),
    ...authOption(values),
    ...securityOptions(values),
  };
}

/**
 * Asks for the password last, once everything else has been checked. With no
 * --password-env, none is asked where the person's own Kerberos ticket can
 * log on (their domain logon, or kinit): with --kerberos, or without --ntlm
 * where the share is named (Kerberos needs the server's name) and a ticket
 * is held. The result says Kerberos was used, and for whom.
 */
export async function withPassword<T extends Omit<ShareLogin, 'password'>>(
  login: T,
  values: Record<string, unknown>,
  ticketHeld: () => boolean = holdsKerberosTicket,
): Promise<T & { password: string }> {
  const envName = optional(values, 'password-env');
  if (envName === undefined && usesOwnTicket(login, ticketHeld)) return { ...login, password: '' };
  return { ...login, password: await readPassword(envName, login.user) };
}

/** Whether a login with no password given logs on with the person's own ticket. */
export function usesOwnTicket(login: Pick<ShareLogin, 'auth' | 'share'>, ticketHeld: () => boolean = holdsKerberosTicket): boolean {
  if (login.auth === 'kerberos') return true;
  return login.auth !== 'ntlm' && isIP(parseSharePath(login.share).host) === 0 && ticketHeld();
}

/** The kinds of failure a logon with the person's own ticket ends in where the ticket will not do (see SmbErrorKind). */
const TICKET_REFUSED = new Set(['kerberos', 'auth-failed']);

/**
 * Runs `call` with `input`; where that logged on with the person's own ticket
 * (no password given, Kerberos not insisted on) and the ticket would not do
 * (a server in no realm of theirs, a ticket for another realm), asks for the
 * password once at a terminal and runs it again: NTLMv2 where the server
 * takes it, as Windows asks when a ticket will not do. Away from a terminal
 * the Kerberos failure stands: it says why.
 */
export async function passwordIfTicketRefused<T extends Pick<ShareLogin, 'auth' | 'user' | 'password'>, R>(
  input: T,
  values: Record<string, unknown>,
  call: (input: T) => Promise<R>,
  tell: (line: string) => void,
  atTerminal: () => boolean = () => process.stdin.isTTY === true,
): Promise<R> {
  try {
    return await call(input);
  } catch (error) {
    const kind = typeof error === 'object' && error !== null ? (error as { kind?: unknown }).kind : undefined;
    const ticketTried = input.password === '' && input.auth !== 'kerberos' && optional(values, 'password-env') === undefined;
    if (!ticketTried || typeof kind !== 'string' || !TICKET_REFUSED.has(kind) || !atTerminal()) throw error;
    tell(`Your Kerberos ticket did not log on (${error instanceof Error ? error.message : String(error)}); the password, then.`);
    return call({ ...input, password: await readPassword(undefined, input.user) });
  }
}
