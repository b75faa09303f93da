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

/** Maps an NT status from a response to a typed error, with what the person can do about it. */
export function errorForStatus(status: number, what: string): SmbError {
  switch (status) {
    case Status.logonFailure:
    case Status.accountRestriction:
    case Status.passwordExpired:
    case Status.accountDisabled:
      return new SmbError('auth-failed', `The server refused the login (${what}).`, 'Check the user name, domain and password; the account may also be disabled or expired.', status);
    case Status.badNetworkName:
      return new SmbError('share-not-found', `The server has no share by that name (${what}).`, 'Check the share name in //server/share; `smbclient -L //server` lists the shares.', status);
    case Status.accessDenied:
    case Status.mediaWriteProtected:
      return new SmbError('access-denied', `The server denied access (${what}).`, 'Pipefill needs to create a scratch folder on the share: use a share and an account that may write.', status);
    case Status.objectNameNotFound:
    case Status.objectPathNotFound:
      return new SmbError('not-found', `No such file or folder (${what}).`, 'The path does not exist on the share.', status);
    case Status.objectNameCollision:
      return new SmbError('already-exists', `A file or folder of that name exists (${what}).`, 'Pipefill only creates names that do not exist; run it again.', status);
    case Status.diskFull:
      return new SmbError('disk-full', `The share is full (${what}).`, 'Free space on the share, or choose a smaller workload.', status);
    case Status.networkSessionExpired:
    case Status.userSessionDeleted:
      return new SmbError('connection-lost', `The server ended the session (${what}).`, 'Run the test again; if it keeps happening, check the server log.', status);
    default:
      return new SmbError('protocol', `The server answered ${what} with status ${hex(status)}.`, 'This status is unexpected here; the server log may say more.', status);
  }
}

export function cancelledError(): SmbError {
  return new SmbError('cancelled', 'The test copy was cancelled.', 'Nothing was left on the share.');
}
