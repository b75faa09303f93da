// Who logs on, as people type it: `alice`, `CORP\alice` (the domain's
// NetBIOS name, as Windows shows it) or `alice@corp.example.com` (a user
// principal name), with or without a separate domain field. Kerberos needs a
// principal in a realm, NTLM a user and a domain (MS-NLMP 3.1.5.1.2: a UPN
// goes as the user name with an empty domain, which Windows and Samba accept).

import { PipefillInputError } from './errors.js';

export interface LoginName {
  readonly user: string;
  /** The domain as typed (NetBIOS or DNS form), from `DOMAIN\user` or the domain field. */
  readonly domain?: string;
  /** The realm of a `user@realm` name, in Kerberos's upper case. */
  readonly realm?: string;
}

/** Splits a typed user name (and the separate domain field, if any) into its parts; contradictions are input errors. */
export function parseLoginName(typed: string, domainField?: string): LoginName {
  const text = typed.trim();
  const domain = domainField?.trim() === '' ? undefined : domainField?.trim();
  const backslash = text.indexOf('\\');
  const at = text.lastIndexOf('@');
  if (backslash >= 0 && at > backslash) {
    throw new PipefillInputError(`${JSON.stringify(typed)} gives a domain twice (DOMAIN\\user@realm).`, 'Type DOMAIN\\user or user@realm, not both.');
  }
  if (backslash >= 0) {
    const prefix = text.slice(0, backslash);
    const user = text.slice(backslash + 1);
    if (prefix === '' || user === '' || user.includes('\\'))
      throw new PipefillInputError(`${JSON.stringify(typed)} is not DOMAIN\\user.`, 'Type the domain, one backslash, then the user: CORP\\alice.');
    if (domain !== undefined && domain.toLowerCase() !== prefix.toLowerCase())
      throw new PipefillInputError(
        `The user ${JSON.stringify(typed)} names the domain ${prefix}, and the domain field says ${domain}.`,
        'Give the domain once.',
      );
    return { user, domain: prefix };
  }
  if (at > 0 && at < text.length - 1) {
    const user = text.slice(0, at);
    const realm = text.slice(at + 1).toUpperCase();
    if (domain !== undefined && !realm.toLowerCase().startsWith(domain.toLowerCase()))
      throw new PipefillInputError(`The user ${JSON.stringify(typed)} names the realm ${realm}, and the domain field says ${domain}.`, 'Give the domain once.');
    return { user, realm, ...(domain === undefined ? {} : { domain }) };
  }
  if (text === '') throw new PipefillInputError('No user name.', 'Type the user to log on as: alice, CORP\\alice or alice@corp.example.com.');
  return { user: text, ...(domain === undefined ? {} : { domain }) };
}

/**
 * The Kerberos principal of a login: the typed realm; else a DNS-form domain
 * in upper case; else the default realm where the NetBIOS domain is its first
 * label (CORP for CORP.EXAMPLE.COM), else the NetBIOS name as a realm (which
 * a KDC lookup then confirms or refuses); else the default realm.
 */
export function kerberosPrincipal(name: LoginName, defaultRealm: string | undefined): string {
  const realm =
    name.realm ??
    (name.domain === undefined
      ? defaultRealm
      : name.domain.includes('.')
        ? name.domain.toUpperCase()
        : defaultRealm !== undefined && defaultRealm.split('.')[0] === name.domain.toUpperCase()
          ? defaultRealm
          : name.domain.toUpperCase());
  return realm === undefined ? name.user : `${name.user}@${realm}`;
}

/** NTLM's user and domain for a login: a UPN goes whole, as the user, with no domain. */
export function ntlmIdentity(name: LoginName): { user: string; domain: string } {
  if (name.realm !== undefined) return { user: `${name.user}@${name.realm.toLowerCase()}`, domain: '' };
  return { user: name.user, domain: name.domain ?? '' };
}

/** The login as a person reads it: CORP\alice, alice@CORP.EXAMPLE.COM or alice. */
export function formatLoginName(name: LoginName): string {
  if (name.realm !== undefined) return `${name.user}@${name.realm}`;
  return name.domain === undefined ? name.user : `${name.domain}\\${name.user}`;
}
