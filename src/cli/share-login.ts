// The share and login options that copy-test and probe both take.

import type { ShareLogin } from '../contract/share-login.js';
import { PipefillInputError } from '../model/errors.js';
import { formatSharePath, parseSharePath } from '../model/share-path.js';
import { optional, required } from './args.js';
import { readPassword } from './password.js';

export const SHARE_LOGIN_OPTIONS = {
  share: { type: 'string' },
  user: { type: 'string' },
  'password-env': { type: 'string' },
  domain: { type: 'string' },
  signing: { type: 'string' },
  encrypt: { type: 'boolean' },
  'no-encrypt': { type: 'boolean' },
} as const;

/** The usage line of the signing and encryption options, for every command that opens a share. */
export const SECURITY_USAGE = '[--signing auto|required] [--encrypt | --no-encrypt]';

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

/** The share (canonical form), user, domain, signing and encryption, without the password yet. */
export function shareLoginOptions(values: Record<string, unknown>): Omit<ShareLogin, 'password'> {
  const domain = optional(values, 'domain');
  return {
    share: formatSharePath(parseSharePath(required(values, 'share', '//fileserver/projects'))),
    user: required(values, 'user', 'alice'),
    ...(domain === undefined ? {} : { domain }),
    ...securityOptions(values),
  };
}

/** Asks for the password last, once everything else has been checked. */
export async function withPassword<T extends Omit<ShareLogin, 'password'>>(login: T, values: Record<string, unknown>): Promise<T & { password: string }> {
  return { ...login, password: await readPassword(optional(values, 'password-env'), login.user) };
}
