// Whether the person holds a Kerberos ticket now (after kinit, or a domain
// logon that left one in their credentials cache): MIT krb5's own `klist -s`,
// which reads the cache KRB5CCNAME names (or the default) and exits 0 only
// when it holds a ticket that has not expired. On a domain-joined PC that
// ticket is the logon: Pipefill uses it where no password is given (issue
// 50), as Windows's Negotiate does, rather than asking for a password.

import { spawnSync } from 'node:child_process';

/** True when the credentials cache holds a valid ticket; false where it holds none, or klist is not installed (krb5-user). */
export function holdsKerberosTicket(): boolean {
  const klist = spawnSync('klist', ['-s'], { stdio: 'ignore', timeout: 2_000 });
  return klist.status === 0;
}

/**
 * The principal of the ticket held (klist's "Default principal"), for the
 * Start view's "log on as you are"; undefined where none is held. klist runs
 * in the C locale, so its words are the ones parsed.
 */
export function heldTicketPrincipal(): string | undefined {
  if (!holdsKerberosTicket()) return undefined;
  const klist = spawnSync('klist', [], { encoding: 'utf8', timeout: 2_000, env: { ...process.env, LANG: 'C', LC_ALL: 'C' } });
  const principal = /^Default principal:\s*(\S+)\s*$/m.exec(klist.stdout ?? '')?.[1];
  // A name from a file the person controls, shown in a page: a principal's own characters only, and short.
  return principal !== undefined && /^[\w.$@/-]{1,256}$/.test(principal) ? principal : undefined;
}
