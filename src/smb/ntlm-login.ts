// An NTLMv2 logon over SESSION_SETUP (MS-NLMP 3.1.5, MS-SMB2 3.2.5.3):
// NEGOTIATE, the server's CHALLENGE (and what it says of itself), then
// AUTHENTICATE with the session key. Used where Kerberos cannot work.

import { hostname } from 'node:os';
import { SmbError } from './errors.js';
import type { SetupStep } from './kerberos-login.js';
import { ntlmInMechList } from './negotiate.js';
import { Status } from './protocol.js';
import type { SmbResponse } from './request-frames.js';
import { authenticateMessage, negotiateMessage, NtlmError, parseChallenge } from './security/ntlm.js';
import type { ServerSays } from './session-types.js';

export interface NtlmResult {
  readonly final: SmbResponse;
  readonly sessionKey: Buffer;
  readonly serverSays: ServerSays;
}

/** NTLMv2 with `identity`; `serverHint` is the NEGOTIATE's security blob, for the error where the server takes Kerberos only. */
export async function ntlmLogon(
  identity: { user: string; password: string; domain: string },
  serverHint: Buffer,
  step: SetupStep,
  whyNotKerberos: string,
  kerberosFix?: string,
): Promise<NtlmResult> {
  const workstation = (hostname().split('.')[0] ?? 'PIPEFILL').slice(0, 15);
  const ntlmNegotiate = negotiateMessage();
  const first = await step(ntlmNegotiate, 'login (NTLM negotiate)');
  if (first.response.header.status !== Status.moreProcessingRequired)
    throw new SmbError('protocol', 'The server ended the login after the first NTLM message.', 'The server may not take NTLM logins.');
  const challenge = first.blob;
  let authentication;
  let serverSays: ServerSays;
  try {
    const parsed = parseChallenge(challenge);
    serverSays = { ...(parsed.version ? { ntlmVersion: parsed.version } : {}), ...(parsed.computerName ? { computerName: parsed.computerName } : {}) };
    authentication = authenticateMessage({ ...identity, workstation }, ntlmNegotiate, challenge);
  } catch (error) {
    if (error instanceof NtlmError)
      throw new SmbError(
        'protocol',
        `The server's NTLM challenge is not valid: ${error.message}.`,
        'The server or something on the path is misbehaving.',
        undefined,
        { cause: error },
      );
    throw error;
  }
  const final = await step(authentication.message, `login as ${identity.domain ? `${identity.domain}\\` : ''}${identity.user} (NTLMv2)`).catch(
    (error: unknown) => {
      const kerberosOnly =
        error instanceof SmbError && (error.status === Status.ntlmBlocked || (error.kind === 'auth-failed' && ntlmInMechList(serverHint) === 'kerberos-only'));
      if (kerberosOnly) {
        throw new SmbError(
          'auth-unsupported',
          `The server refused the NTLM login as ${identity.user}: it takes Kerberos only, and Kerberos was not used because ${whyNotKerberos}.`,
          kerberosFix ??
            "Use Kerberos: reach the server by its name in the domain (not its address), with user@REALM or DOMAIN\\user, or with a domain ticket (kinit). Or allow NTLMv2 on the server (Samba: ntlm auth = ntlmv2-only; Windows: the 'Restrict NTLM' policies).",
          error.status,
          { cause: error },
        );
      }
      // NTLM was the fallback of a Kerberos logon that failed (a realm typed wrong, no KDC for it): that reason is the
      // one to act on, more likely than the password (issue 50: alice@WRONG.TEST read "check the password").
      if (error instanceof SmbError && error.kind === 'auth-failed' && kerberosFix !== undefined) {
        throw new SmbError(
          'auth-failed',
          `The server refused the NTLM login as ${identity.user}, tried because Kerberos failed first: ${whyNotKerberos}.`,
          `${kerberosFix.replace(/\.?$/, '.')} If that part is right, check the password.`,
          error.status,
          { cause: error },
        );
      }
      throw error;
    },
  );
  if (final.response.header.status !== Status.success)
    throw new SmbError('protocol', 'The server asked for more after the NTLM AUTHENTICATE message.', 'The server is misbehaving.');
  return { final: final.response, sessionKey: authentication.sessionKey, serverSays };
}
