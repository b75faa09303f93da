// Every way a test copy can fail, as a typed error a person can act on.

import { PipefillError } from '../model/errors.js';
import { Status } from './protocol.js';

export type SmbErrorKind =
  | 'unreachable'
  | 'auth-failed'
  | 'share-not-found'
  | 'access-denied'
  | 'not-found'
  | 'already-exists'
  | 'disk-full'
  | 'connection-lost'
  | 'timeout'
  | 'cancelled'
  | 'data-mismatch'
  /** A reply whose signature does not verify, or that came unsigned or unencrypted where it must not. */
  | 'integrity'
  /** Nothing in common: no dialect, no cipher, or encryption required where the person forbade it. */
  | 'negotiation'
  /** The server takes no authentication Pipefill speaks (Kerberos only). */
  | 'auth-unsupported'
  /** Kerberos could not work (clock, server name, domain controller, ticket): the hint says what to change. */
  | 'kerberos'
  /** Full-size packets vanish on the way to the server or back, and nothing says so: a path MTU black hole (src/model/path-mtu.ts). */
  | 'path-mtu'
  | 'protocol';

export class SmbError extends PipefillError {
  override readonly name = 'SmbError';
  constructor(
    override readonly kind: SmbErrorKind,
    message: string,
    hint: string,
    readonly status?: number,
    options?: { cause?: unknown },
  ) {
    super(kind, message, hint, options);
  }
}

const hex = (status: number) => `0x${status.toString(16).padStart(8, '0')}`;

interface StatusMeaning {
  readonly kind: SmbErrorKind;
  readonly message: string;
  readonly hint: string;
}

const AUTH_FAILED: StatusMeaning = {
  kind: 'auth-failed',
  message: 'The server refused the login',
  hint: 'Check the user name, domain and password; the account may also be disabled or expired.',
};
const ACCESS_DENIED: StatusMeaning = {
  kind: 'access-denied',
  message: 'The server denied access',
  hint: 'Pipefill needs to create a scratch folder on the share: use a share and an account that may write.',
};
const NOT_FOUND: StatusMeaning = { kind: 'not-found', message: 'No such file or folder', hint: 'The path does not exist on the share.' };
const SESSION_GONE: StatusMeaning = {
  kind: 'connection-lost',
  message: 'The server ended the session',
  hint: 'Run the test again; if it keeps happening, check the server log.',
};

/** What each NT status Pipefill expects means, and what the person can do about it. */
const MEANINGS = new Map<number, StatusMeaning>([
  [Status.logonFailure, AUTH_FAILED],
  [Status.accountRestriction, AUTH_FAILED],
  [Status.passwordExpired, AUTH_FAILED],
  [Status.accountDisabled, AUTH_FAILED],
  [
    Status.badNetworkName,
    {
      kind: 'share-not-found',
      message: 'The server has no share by that name',
      hint: 'Check the share name in //server/share; `smbclient -L //server` lists the shares.',
    },
  ],
  [Status.accessDenied, ACCESS_DENIED],
  [Status.mediaWriteProtected, ACCESS_DENIED],
  [Status.objectNameNotFound, NOT_FOUND],
  [Status.objectPathNotFound, NOT_FOUND],
  [
    Status.objectNameCollision,
    { kind: 'already-exists', message: 'A file or folder of that name exists', hint: 'Pipefill only creates names that do not exist; run it again.' },
  ],
  [Status.diskFull, { kind: 'disk-full', message: 'The share is full', hint: 'Free space on the share, or choose a smaller workload.' }],
  [Status.networkSessionExpired, SESSION_GONE],
  [Status.userSessionDeleted, SESSION_GONE],
]);

/** Maps an NT status from a response to a typed error. */
export function errorForStatus(status: number, what: string): SmbError {
  const meaning = MEANINGS.get(status);
  if (meaning) return new SmbError(meaning.kind, `${meaning.message} (${what}).`, meaning.hint, status);
  return new SmbError(
    'protocol',
    `The server answered ${what} with status ${hex(status)}.`,
    'This status is unexpected here; the server log may say more.',
    status,
  );
}

export function cancelledError(): SmbError {
  return new SmbError('cancelled', 'The test copy was cancelled.', 'Nothing was left on the share.');
}

/** `work`'s outcome, or a cancelled error as soon as `signal` aborts (the work itself goes on: what it holds is still accounted for). */
export function waitUnlessCancelled<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return work;
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(cancelledError());
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}
