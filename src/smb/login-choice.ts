// Which logon to use, as Windows's Negotiate package decides it: Kerberos
// where it can work, NTLMv2 only where it cannot, and always a reason the
// result can show. Pure: the caller tells what it knows.

import { isIP } from 'node:net';

/** What the person asked for: `auto` (Kerberos where it can work), or one of the two. */
export type AuthChoice = 'auto' | 'kerberos' | 'ntlm';

export type LoginPlan =
  | { readonly mechanism: 'kerberos'; readonly mayFallBack: boolean }
  | { readonly mechanism: 'ntlmv2'; readonly whyNotKerberos: string }
  | { readonly mechanism: 'none'; readonly why: string; readonly fix: string };

export interface LoginFacts {
  readonly auth: AuthChoice;
  readonly host: string;
  readonly hasPassword: boolean;
  /** Whether the server's SPNEGO hint lists Kerberos. */
  readonly serverOffersKerberos: 'offered' | 'not-offered' | 'unknown';
  /** Why this machine cannot do Kerberos (the addon is not built, say), or undefined. */
  readonly kerberosUnavailable?: string;
}

export function planLogin(facts: LoginFacts): LoginPlan {
  if (facts.auth === 'ntlm') {
    if (!facts.hasPassword)
      return { mechanism: 'none', why: 'NTLM was asked for and no password was given.', fix: 'Give the password, or let Pipefill use Kerberos.' };
    return { mechanism: 'ntlmv2', whyNotKerberos: 'NTLM was asked for' };
  }
  if (facts.kerberosUnavailable !== undefined) {
    if (facts.auth === 'kerberos' || !facts.hasPassword)
      return {
        mechanism: 'none',
        why: `Kerberos is not available: ${facts.kerberosUnavailable}.`,
        fix: 'Install libkrb5-dev and run npm start again, or give a password for NTLM.',
      };
    return { mechanism: 'ntlmv2', whyNotKerberos: `Kerberos is not available (${facts.kerberosUnavailable})` };
  }
  if (facts.auth === 'kerberos') return { mechanism: 'kerberos', mayFallBack: false };
  // Windows uses NTLM for a share reached by address: a service principal names a server, not an address.
  if (isIP(facts.host) !== 0) {
    if (!facts.hasPassword)
      return {
        mechanism: 'none',
        why: `${facts.host} is an address, and Kerberos needs the server's name.`,
        fix: 'Use the server name (//fileserver.corp.example.com/share), or give a password for NTLM.',
      };
    return { mechanism: 'ntlmv2', whyNotKerberos: 'the server was reached by its address; Kerberos needs its name' };
  }
  // An unprotected hint could be stripped on the way; SMB 3.1.1's preauth integrity covers it, and what it can cost is NTLM, which the server takes anyway.
  if (facts.serverOffersKerberos === 'not-offered' && facts.hasPassword) return { mechanism: 'ntlmv2', whyNotKerberos: 'the server offers no Kerberos' };
  return { mechanism: 'kerberos', mayFallBack: facts.hasPassword };
}
