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
  return login.guest ? `${how}, logged on as a GUEST: nothing signed or sealed, and Windows 10/11 refuse such logons` : how;
}
