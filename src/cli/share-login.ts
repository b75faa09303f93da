// The share and login options that copy-test and probe both take.

import type { ShareLogin } from '../contract/share-login.js';
import { formatSharePath, parseSharePath } from '../model/share-path.js';
import { optional, required } from './args.js';
import { readPassword } from './password.js';

export const SHARE_LOGIN_OPTIONS = {
  share: { type: 'string' },
  user: { type: 'string' },
  'password-env': { type: 'string' },
  domain: { type: 'string' },
} as const;

/** The share (canonical form), user and domain, without the password yet. */
export function shareLoginOptions(values: Record<string, unknown>): Omit<ShareLogin, 'password'> {
  const domain = optional(values, 'domain');
  return {
    share: formatSharePath(parseSharePath(required(values, 'share', '//fileserver/projects'))),
    user: required(values, 'user', 'alice'),
    ...(domain === undefined ? {} : { domain }),
  };
}

/** Asks for the password last, once everything else has been checked. */
export async function withPassword<T extends Omit<ShareLogin, 'password'>>(login: T, values: Record<string, unknown>): Promise<T & { password: string }> {
  return { ...login, password: await readPassword(optional(values, 'password-env'), login.user) };
}
