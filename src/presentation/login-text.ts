// How a session logged on, in a few words for every result and report:
// "Kerberos (alice@CORP.EXAMPLE.COM)", or NTLMv2 with why not Kerberos, and
// a guest logon called what it is.

import { ntlmRisk } from '../contract/readiness.js';
import type { LoginUsedDto } from '../contract/share-login.js';

export function loginText(login: LoginUsedDto | undefined): string | undefined {
  if (login === undefined) return undefined;
  const how =
    login.mechanism === 'kerberos'
      ? `Kerberos${login.principal ? ` (${login.principal})` : ''}`
      : `NTLMv2${login.account ? ` as ${login.account}` : ''}${login.whyNotKerberos ? ` (not Kerberos: ${login.whyNotKerberos})` : ''}`;
  if (login.guest) return `${how}, logged on as a GUEST: nothing signed or sealed, and Windows 10/11 refuse such logons`;
  const readiness = ntlmReadiness(login);
  return readiness ? `${how}; ${readiness}` : how;
}

/**
 * What an NTLM logon means for the newest clients (issue 50), for the
 * login line: where NTLM is blocked, the fix (src/contract/readiness.ts
 * decides it). Nothing where NTLM was asked for, or where this machine could
 * not try Kerberos: the share was not shown to need NTLM.
 */
export function ntlmReadiness(login: LoginUsedDto): string | undefined {
  const risk = ntlmRisk(login);
  if (!risk || risk.kerberosUntried) return undefined;
  return `where NTLM is blocked (Windows 11 24H2 can block it; Windows Server 2025 domains restrict it), ${risk.fix}`;
}
