// How a session logged on, in a few words for every result and report:
// "Kerberos (alice@CORP.EXAMPLE.COM)", or NTLMv2 with why not Kerberos, and
// a guest logon called what it is.

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
 * What an NTLM logon means for the newest clients (issue 50): Windows 11 24H2
 * can block NTLM for SMB, and domains moving to Windows Server 2025 restrict
 * it; where Kerberos was possible but not used, the fix is the server's name.
 * Nothing where NTLM was asked for, or where this machine cannot do Kerberos.
 */
export function ntlmReadiness(login: LoginUsedDto): string | undefined {
  if (login.mechanism !== 'ntlmv2' || login.guest) return undefined;
  const why = login.whyNotKerberos ?? '';
  if (/reached by its address/.test(why))
    return 'where NTLM is blocked (Windows 11 24H2 can block it; Windows Server 2025 domains restrict it), the same share by its DNS name logs on with Kerberos';
  if (/offers no Kerberos/.test(why))
    return 'where NTLM is blocked (Windows 11 24H2 can block it; Windows Server 2025 domains restrict it), this share will not open until its server takes Kerberos (joins the domain)';
  return undefined;
}
