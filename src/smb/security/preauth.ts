// SMB 3.1.1 preauthentication integrity (MS-SMB2 3.2.5.2, 3.2.4.2.3,
// 3.2.5.3.1): a SHA-512 chain over every NEGOTIATE and SESSION_SETUP message
// sent and received, up to (not including) the final successful
// SESSION_SETUP response. Its value is the context of the session's key
// derivation, so a man in the middle who altered any of them ends with keys
// the server does not have.

import { createHash } from 'node:crypto';

export const PREAUTH_HASH_BYTES = 64;

export class PreauthHash {
  private value: Buffer;

  constructor(start: Buffer = Buffer.alloc(PREAUTH_HASH_BYTES)) {
    if (start.length !== PREAUTH_HASH_BYTES) throw new Error(`A preauth hash is ${PREAUTH_HASH_BYTES} bytes.`);
    this.value = Buffer.from(start);
  }

  /** H = SHA-512(H || message), the message being the whole SMB2 message (header included, no transport length). */
  update(message: Buffer): void {
    this.value = createHash('sha512').update(this.value).update(message).digest();
  }

  /** A copy of the chain so far: a session's chain starts from the connection's after NEGOTIATE. */
  fork(): PreauthHash {
    return new PreauthHash(this.value);
  }

  get hash(): Buffer {
    return Buffer.from(this.value);
  }
}
