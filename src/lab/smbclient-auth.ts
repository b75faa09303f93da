// smbclient's password goes in an authentication file (smbclient -A), never
// on its command line: /proc/<pid>/cmdline is readable by every local user.
// The file lives in a fresh 0700 folder, is created exclusively and 0600,
// and is gone when the callback returns.

import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PipefillError } from '../model/errors.js';
import { createExclusive, freshDirectory } from '../platform/safe-file.js';

export interface SmbclientLogin {
  readonly user: string;
  readonly password: string;
  readonly domain?: string;
}

/** The file's text (smbclient(1), -A): one `name = value` per line, so no value may hold a line break. */
export function authenticationFileText(login: SmbclientLogin): string {
  for (const [field, value] of Object.entries(login)) {
    if (/[\r\n]/.test(String(value)))
      throw new PipefillError('bad-input', `The ${field} for smbclient holds a line break.`, 'Use a user name and password without line breaks.');
  }
  return `username = ${login.user}\npassword = ${login.password}\n${login.domain ? `domain = ${login.domain}\n` : ''}`;
}

/** Runs `use` with the path of an authentication file for `login`, removed afterwards. */
export function withAuthenticationFile<T>(login: SmbclientLogin, use: (path: string) => T): T {
  const folder = freshDirectory(tmpdir(), 'pipefill-smbclient-');
  try {
    const path = join(folder, 'auth');
    createExclusive(path, authenticationFileText(login));
    return use(path);
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

/** withAuthenticationFile for work that is still running when `use` returns (several smbclients at once). */
export async function withAuthenticationFileWhile<T>(login: SmbclientLogin, use: (path: string) => Promise<T>): Promise<T> {
  const folder = freshDirectory(tmpdir(), 'pipefill-smbclient-');
  try {
    const path = join(folder, 'auth');
    createExclusive(path, authenticationFileText(login));
    return await use(path);
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}
