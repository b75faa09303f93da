// SPNEGO's two messages (RFC 4178 4.2, as MS-SPNG 2.2 profiles them) around
// Kerberos's tokens: Pipefill's negTokenInit offers Kerberos alone with its
// AP-REQ as the optimistic token; the server answers with negTokenResp. The
// mechListMIC (RFC 4178 5) protects the offered list, which is computed
// over its DER encoding, so that encoding is kept here too. Everything a
// server sends is parsed with bounds (src/smb/security/der.ts).

import { contextTag, DerError, element, oidBytes, readChildren, readElement, Tag } from './der.js';

/** RFC 4178 3: SPNEGO's own OID, and Kerberos V5's (RFC 4121 4.1), the one mechanism Pipefill's SPNEGO offers. */
export const SPNEGO_OID = oidBytes('1.3.6.1.5.5.2');
export const KERBEROS_OID = oidBytes('1.2.840.113554.1.2.2');
/** Windows's own Kerberos OID (MS-KILE 3.1.5.12): a server may name this one as the mechanism it chose. */
export const MS_KERBEROS_OID = oidBytes('1.2.840.48018.1.2.2');

export class SpnegoError extends DerError {}

/** The MechTypeList Pipefill offers, DER-encoded: what the mechListMIC covers (RFC 4178 5). */
export const OFFERED_MECH_TYPES = element(Tag.sequence, element(Tag.oid, KERBEROS_OID));

/**
 * The first token (RFC 4178 4.2.1, inside RFC 2743 3.1's InitialContextToken):
 * [APPLICATION 0] { SPNEGO OID, [0] NegTokenInit { [0] mechTypes, [2] mechToken } }.
 */
export function negTokenInit(mechToken: Buffer): Buffer {
  const init = element(Tag.sequence, element(contextTag(0), OFFERED_MECH_TYPES), element(contextTag(2), element(Tag.octetString, mechToken)));
  return element(0x60, element(Tag.oid, SPNEGO_OID), element(contextTag(0), init));
}

/** A later token from the client: [1] NegTokenResp carrying only its mechListMIC (RFC 4178 4.2.2). */
export function negTokenRespWithMic(mic: Buffer): Buffer {
  return element(contextTag(1), element(Tag.sequence, element(contextTag(3), element(Tag.octetString, mic))));
}

export type NegState = 'accept-completed' | 'accept-incomplete' | 'reject' | 'request-mic';
const NEG_STATES: readonly NegState[] = ['accept-completed', 'accept-incomplete', 'reject', 'request-mic'];

/** A server's negTokenResp: each field as it came, or absent. */
export interface NegTokenResp {
  readonly negState?: NegState;
  /** Whether the mechanism the server chose is Kerberos (either OID); absent when it named none. */
  readonly kerberosChosen?: boolean;
  readonly responseToken?: Buffer;
  readonly mechListMic?: Buffer;
}

/** Parses a server's [1] NegTokenResp (RFC 4178 4.2.2); anything else is a SpnegoError. */
export function parseNegTokenResp(token: Buffer): NegTokenResp {
  try {
    const outer = readElement(token);
    if (outer.tag !== contextTag(1)) throw new SpnegoError(`the server's token is not a negTokenResp (tag 0x${outer.tag.toString(16)})`);
    const sequence = readElement(outer.content);
    if (sequence.tag !== Tag.sequence) throw new SpnegoError('the negTokenResp is not a SEQUENCE');
    const fields: { negState?: NegState; kerberosChosen?: boolean; responseToken?: Buffer; mechListMic?: Buffer } = {};
    for (const field of readChildren(sequence.content)) {
      const inner = readElement(field.content);
      switch (field.tag) {
        case contextTag(0): {
          if (inner.tag !== Tag.enumerated || inner.content.length !== 1) throw new SpnegoError('negState is not a one-byte ENUMERATED');
          const state = NEG_STATES[inner.content[0] as number];
          if (state === undefined) throw new SpnegoError(`negState ${inner.content[0]} is not one RFC 4178 defines`);
          fields.negState = state;
          break;
        }
        case contextTag(1):
          if (inner.tag !== Tag.oid) throw new SpnegoError('supportedMech is not an OID');
          fields.kerberosChosen = inner.content.equals(KERBEROS_OID) || inner.content.equals(MS_KERBEROS_OID);
          break;
        case contextTag(2):
          if (inner.tag !== Tag.octetString) throw new SpnegoError('responseToken is not an OCTET STRING');
          fields.responseToken = inner.content;
          break;
        case contextTag(3):
          if (inner.tag !== Tag.octetString) throw new SpnegoError('mechListMIC is not an OCTET STRING');
          fields.mechListMic = inner.content;
          break;
        default:
          // RFC 4178's "..." extension marker: a later field is ignored, as the ASN.1 allows.
          break;
      }
    }
    return fields;
  } catch (error) {
    if (error instanceof SpnegoError) throw error;
    if (error instanceof DerError) throw new SpnegoError(error.message);
    throw error;
  }
}
