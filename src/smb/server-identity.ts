// What a server says of itself where the logon asked it nothing (issue 37):
// a Kerberos logon has no NTLM CHALLENGE, whose Version field is what
// recognises the server (MS-NLMP 2.2.2.10; model/server-recognition.ts), so
// an assessment over Kerberos took a Samba AD member for a Windows server.
// One NEGOTIATE and one SESSION_SETUP carrying an NTLM NEGOTIATE (MS-NLMP
// 2.2.1.1), on a connection of its own that is dropped once the CHALLENGE
// is in: nothing is authenticated and no session is made, so a server that
// refuses NTLM logons still answers. One that sends no challenge leaves the
// server unrecognised, as before.

import { SmbConnection } from './connection.js';
import { negotiateRequest, parseNegotiate } from './negotiate.js';
import { Command, Status } from './protocol.js';
import { negotiateMessage, parseChallenge } from './security/ntlm.js';
import { parseSessionSetup, sessionSetupRequest } from './session-setup.js';
import type { ServerSays, SmbTarget } from './session-types.js';
import { connectHost } from '../model/share-path.js';
import { PIPEFILL_OFFER } from '../model/smb-security.js';

/** The whole ask takes at most this long: it only names the server, and a copy waits for it. */
const ASK_MS = 3_000;

/** The server's NTLM CHALLENGE's word on itself, or undefined when it sends none (or nothing usable) within ASK_MS. */
export async function askServerIdentity(target: SmbTarget, signal?: AbortSignal): Promise<ServerSays | undefined> {
  const deadline = performance.now() + ASK_MS;
  const left = () => ({ timeoutMs: Math.max(1, deadline - performance.now()), ...(signal ? { signal } : {}) });
  const connection = await SmbConnection.connect(connectHost(target), target.port, left()).catch(() => undefined);
  if (!connection) return undefined;
  try {
    const offer = PIPEFILL_OFFER;
    const negotiated = await connection.request({ command: Command.negotiate, body: negotiateRequest(offer), what: 'NEGOTIATE' }, left());
    parseNegotiate(negotiated.message, offer);
    const reply = await connection.request(
      {
        command: Command.sessionSetup,
        body: sessionSetupRequest(negotiateMessage(), false),
        okStatuses: [Status.moreProcessingRequired],
        what: 'NTLM negotiate (to recognise the server)',
      },
      left(),
    );
    if (reply.header.status !== Status.moreProcessingRequired) return undefined;
    const challenge = parseChallenge(parseSessionSetup(reply).blob);
    return { ...(challenge.version ? { ntlmVersion: challenge.version } : {}), ...(challenge.computerName ? { computerName: challenge.computerName } : {}) };
  } catch {
    // A refusal, a garbled challenge or a timeout: the server stays unrecognised, and nothing else depends on this.
    return undefined;
  } finally {
    connection.destroy();
  }
}
