// NEGOTIATE (MS-SMB2 2.2.3, 2.2.4): the request a client profile sends, and
// the server's answer, every offset and length checked against the reply.

import { randomBytes } from 'node:crypto';
import type { CipherName, DialectName, SecurityOffer, SigningAlgorithm } from './security/algorithms.js';
import { dialectId, dialectName, isSmb3 } from './security/algorithms.js';
import { NegotiateContextError, offerContexts, parseServerContexts, PREAUTH_SALT_BYTES } from './security/negotiate-contexts.js';
import { SMB2_HEADER_BYTES } from './protocol.js';

export const SecurityMode = { signingEnabled: 0x1, signingRequired: 0x2 } as const;

export const Capability = { dfs: 0x1, leasing: 0x2, largeMtu: 0x4, multiChannel: 0x8, encryption: 0x40 } as const;

const REQUEST_FIXED_BYTES = 36;

/** The NEGOTIATE request body for an offer: its dialects, and for 3.1.1 its contexts. */
export function negotiateRequest(offer: SecurityOffer, clientGuid: Buffer = randomBytes(16), salt: Buffer = randomBytes(PREAUTH_SALT_BYTES)): Buffer {
  const dialects = offer.dialects;
  const offers311 = dialects.includes('3.1.1');
  const offers30 = dialects.some((dialect) => dialect === '3.0' || dialect === '3.0.2');
  const dialectBytes = 2 * dialects.length;
  // Contexts start 8-byte aligned, counted from the header (MS-SMB2 2.2.3).
  const contextsAt = offers311 ? (SMB2_HEADER_BYTES + REQUEST_FIXED_BYTES + dialectBytes + 7) & ~7 : 0;
  const contexts = offers311 ? offerContexts(salt, offer.ciphers, offer.signing) : undefined;
  const bodyBytes = contexts ? contextsAt - SMB2_HEADER_BYTES + contexts.bytes.length : REQUEST_FIXED_BYTES + dialectBytes;
  const body = Buffer.alloc(bodyBytes);
  body.writeUInt16LE(36, 0);
  body.writeUInt16LE(dialects.length, 2);
  body.writeUInt16LE(offer.signingRequired ? SecurityMode.signingRequired : SecurityMode.signingEnabled, 4);
  const smb3 = dialects.some((dialect) => isSmb3(dialect));
  // 3.0/3.0.2 announce encryption with the capability; 3.1.1 with its context.
  const capabilities = (smb3 ? Capability.largeMtu : 0) | (offers30 && offer.ciphers.length > 0 ? Capability.encryption : 0);
  body.writeUInt32LE(capabilities, 8);
  clientGuid.copy(body, 12);
  if (contexts) {
    body.writeUInt32LE(contextsAt, 28);
    body.writeUInt16LE(contexts.count, 32);
    contexts.bytes.copy(body, contextsAt - SMB2_HEADER_BYTES);
  }
  dialects.forEach((dialect, index) => body.writeUInt16LE(dialectId(dialect), REQUEST_FIXED_BYTES + 2 * index));
  return body;
}

export interface NegotiateResult {
  readonly dialect: DialectName;
  readonly securityMode: number;
  readonly capabilities: number;
  readonly maxTransactSize: number;
  readonly maxReadSize: number;
  readonly maxWriteSize: number;
  /** The server's SPNEGO hint (NegTokenInit): which authentication mechanisms it takes. */
  readonly securityBlob: Buffer;
  /** The cipher both sides will use, if any: 3.1.1 from the context, 3.0/3.0.2 AES-128-CCM with the capability. */
  readonly cipher?: CipherName;
  /** The signing algorithm of the session (3.1.1 context, else the dialect's). */
  readonly signing: SigningAlgorithm;
}

/** The least MaxTransactSize, MaxReadSize and MaxWriteSize a client takes (MS-SMB2 3.2.5.2). */
export const MIN_NEGOTIATED_SIZE = 65_536;

export class NegotiateError extends Error {
  override readonly name = 'NegotiateError';
  constructor(
    message: string,
    /** The server answered with a dialect Pipefill does not speak, or none in common. */
    readonly noCommonDialect = false,
    /** What the person can do, where it is more than "the server is misbehaving". */
    readonly hint?: string,
  ) {
    super(message);
  }
}

const RESPONSE_FIXED_BYTES = 64;

/**
 * Parses a NEGOTIATE response. `message` is the whole SMB2 message (header
 * included): the security buffer and context offsets count from its start.
 */
export function parseNegotiate(message: Buffer, offer: SecurityOffer): NegotiateResult {
  const body = message.subarray(SMB2_HEADER_BYTES);
  if (body.length < RESPONSE_FIXED_BYTES)
    throw new NegotiateError(`the NEGOTIATE response has ${body.length} bytes, fewer than its fixed ${RESPONSE_FIXED_BYTES}`);
  const id = body.readUInt16LE(4);
  const dialect = dialectName(id);
  if (!dialect) throw new NegotiateError(`the server chose dialect 0x${id.toString(16).padStart(4, '0')}, which Pipefill does not speak`, true);
  // Not "no dialect in common": the server broke the rule that it choose one offered (MS-SMB2 3.3.5.4).
  if (!offer.dialects.includes(dialect))
    throw new NegotiateError(
      `the server chose SMB ${dialect}, which this client did not offer (it offered ${offer.dialects.map((d) => `SMB ${d}`).join(', ')})`,
      false,
      'A server must choose one of the dialects offered (MS-SMB2 3.3.5.4); Windows disconnects from one that does not. The server or something on the path is misbehaving.',
    );
  const capabilities = body.readUInt32LE(24);
  const blobOffset = body.readUInt16LE(56);
  const blobLength = body.readUInt16LE(58);
  if (blobLength > 0 && (blobOffset < SMB2_HEADER_BYTES || blobOffset + blobLength > message.length)) {
    throw new NegotiateError(`the NEGOTIATE response's security buffer (${blobLength} bytes at ${blobOffset}) lies outside its ${message.length} bytes`);
  }
  let cipher: CipherName | undefined;
  let signing: SigningAlgorithm = isSmb3(dialect) ? 'AES-128-CMAC' : 'HMAC-SHA256';
  if (dialect === '3.1.1') {
    let contexts;
    try {
      contexts = parseServerContexts(message, body.readUInt32LE(60), body.readUInt16LE(6));
    } catch (error) {
      if (error instanceof NegotiateContextError) throw new NegotiateError(error.message);
      throw error;
    }
    if (!contexts.preauthSha512)
      throw new NegotiateError(
        'the server chose SMB 3.1.1 without SHA-512 preauth integrity',
        false,
        'MS-SMB2 2.2.4 requires a 3.1.1 server to send its preauth integrity context, and Windows 10 and 11 disconnect without it; an SMB 2 profile (win7-smb2) can test this server.',
      );
    cipher = contexts.cipher;
    if (cipher && !offer.ciphers.includes(cipher)) throw new NegotiateError(`the server chose ${cipher}, which was not offered`);
    if (contexts.signing) {
      if (!offer.signing.includes(contexts.signing)) throw new NegotiateError(`the server chose ${contexts.signing} signing, which was not offered`);
      signing = contexts.signing;
    }
  } else if (isSmb3(dialect) && (capabilities & Capability.encryption) !== 0 && offer.ciphers.includes('AES-128-CCM')) {
    cipher = 'AES-128-CCM';
  }
  // MS-SMB2 3.2.5.2: the client SHOULD disconnect when any of the three is below 64 KiB. A server that says 0 would
  // otherwise be asked for requests of 0 bytes, and a copy loop that never advances.
  const sizes = { maxTransactSize: body.readUInt32LE(28), maxReadSize: body.readUInt32LE(32), maxWriteSize: body.readUInt32LE(36) };
  for (const [name, value] of Object.entries(sizes)) {
    if (value < MIN_NEGOTIATED_SIZE)
      throw new NegotiateError(`its ${name.replace(/^max/, 'Max')} is ${value} bytes, below the ${MIN_NEGOTIATED_SIZE} MS-SMB2 asks of a server`);
  }
  return {
    dialect,
    securityMode: body.readUInt16LE(2),
    capabilities,
    ...sizes,
    securityBlob: blobLength > 0 ? Buffer.from(message.subarray(blobOffset, blobOffset + blobLength)) : Buffer.alloc(0),
    ...(cipher ? { cipher } : {}),
    signing,
  };
}

// DER encodings of the mechanism OIDs a server lists in its NegTokenInit.
const NTLMSSP_OID = Buffer.from('060a2b0601040182370202 0a'.replace(/\s/g, ''), 'hex');
const KERBEROS_OIDS = [Buffer.from('06092a864886f712010202', 'hex'), Buffer.from('06092a864882f712010202', 'hex')];

/** Whether the server's SPNEGO hint lists Kerberos (either OID); `unknown` where it sent no hint. */
export function kerberosInMechList(securityBlob: Buffer): 'offered' | 'not-offered' | 'unknown' {
  if (securityBlob.length === 0) return 'unknown';
  return KERBEROS_OIDS.some((oid) => securityBlob.includes(oid)) ? 'offered' : 'not-offered';
}

/**
 * What the server's SPNEGO hint says about NTLM: `offered`, `kerberos-only`
 * (it lists Kerberos and not NTLMSSP), or `unknown` (no hint). A search for
 * the OIDs' DER bytes, not a full ASN.1 parse: the hint only shapes an error
 * message, never a security decision.
 */
export function ntlmInMechList(securityBlob: Buffer): 'offered' | 'kerberos-only' | 'unknown' {
  if (securityBlob.length === 0) return 'unknown';
  if (securityBlob.includes(NTLMSSP_OID)) return 'offered';
  return KERBEROS_OIDS.some((oid) => securityBlob.includes(oid)) ? 'kerberos-only' : 'unknown';
}
