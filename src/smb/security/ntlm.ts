// NTLMv2 for SMB session setup (MS-NLMP 3.1.5.1, 3.3.2), written for the
// session key it yields: node-smb2's NTLM messages authenticate but drop the
// key, and without it nothing can be signed or sealed.
//
// The client asks for key exchange (NTLMSSP_NEGOTIATE_KEY_EXCH): it picks a
// random ExportedSessionKey, the session key of SMB signing and of the SMB 3
// key derivation, and sends it RC4-encrypted under the KeyExchangeKey. When
// the server's CHALLENGE carries a timestamp, the AUTHENTICATE carries a MIC
// (an HMAC-MD5 over all three messages under that key), as Windows does.
//
// MD4 (for the NT hash) and RC4 sit in OpenSSL 3's legacy provider, which
// Node loads only when started with --openssl-legacy-provider; MD4 comes
// from js-md4 (already in the tree under node-smb2) and RC4, sixteen bytes
// once per login, is the few lines below (MS-NLMP 3.4.5.x RC4K).

import { createHmac, randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const md4 = require('js-md4') as { arrayBuffer(message: Uint8Array): ArrayBuffer };

const SIGNATURE = Buffer.from('NTLMSSP\0', 'latin1');

export const NegotiateFlag = {
  unicode: 0x00000001,
  requestTarget: 0x00000004,
  sign: 0x00000010,
  ntlm: 0x00000200,
  alwaysSign: 0x00008000,
  extendedSessionSecurity: 0x00080000,
  targetInfo: 0x00800000,
  version: 0x02000000,
  bits128: 0x20000000,
  keyExchange: 0x40000000,
  bits56: 0x80000000,
} as const;

/** What Pipefill asks for: Unicode, NTLMv2 (extended session security), signing keys, key exchange. */
export const CLIENT_FLAGS =
  (NegotiateFlag.unicode |
    NegotiateFlag.requestTarget |
    NegotiateFlag.sign |
    NegotiateFlag.ntlm |
    NegotiateFlag.alwaysSign |
    NegotiateFlag.extendedSessionSecurity |
    NegotiateFlag.targetInfo |
    NegotiateFlag.version |
    NegotiateFlag.bits128 |
    NegotiateFlag.keyExchange |
    NegotiateFlag.bits56) >>>
  0;

const AvId = { eol: 0, nbComputerName: 1, nbDomainName: 2, dnsComputerName: 3, timestamp: 7, flags: 6 } as const;
/** MsvAvFlags bit: the AUTHENTICATE carries a MIC. */
const AV_FLAG_MIC = 0x2;

/** The Version field Pipefill sends: NTLM revision 15, as current Windows (MS-NLMP 2.2.2.10). */
const VERSION = Buffer.from([10, 0, 0x61, 0x4a, 0, 0, 0, 15]);

export class NtlmError extends Error {
  override readonly name = 'NtlmError';
}

/** RC4 (RC4K in MS-NLMP): the key exchange's one use of it, on 16 bytes. */
export function rc4(key: Buffer, data: Buffer): Buffer {
  const s = Array.from({ length: 256 }, (_, i) => i);
  for (let i = 0, j = 0; i < 256; i++) {
    j = (j + (s[i] ?? 0) + (key[i % key.length] ?? 0)) & 0xff;
    [s[i], s[j]] = [s[j] ?? 0, s[i] ?? 0];
  }
  const out = Buffer.alloc(data.length);
  for (let n = 0, i = 0, j = 0; n < data.length; n++) {
    i = (i + 1) & 0xff;
    j = (j + (s[i] ?? 0)) & 0xff;
    [s[i], s[j]] = [s[j] ?? 0, s[i] ?? 0];
    out[n] = (data[n] ?? 0) ^ (s[((s[i] ?? 0) + (s[j] ?? 0)) & 0xff] ?? 0);
  }
  return out;
}

const hmacMd5 = (key: Buffer, ...parts: Buffer[]): Buffer => {
  const hmac = createHmac('md5', key);
  for (const part of parts) hmac.update(part);
  return hmac.digest();
};

/**
 * Upper case as the server computes it for NTOWFv2: one UTF-16 code unit to
 * one (Windows' RtlUpcaseUnicodeString, Samba's toupper_m), never the
 * expansions of full Unicode case mapping that String.toUpperCase makes:
 * `straße` is `STRAßE` there, where toUpperCase gives `STRASSE` and a
 * response no server accepts. A unit whose upper case is not one unit, or
 * half a surrogate pair, stays as it is.
 */
export function upcaseOneToOne(text: string): string {
  let upper = '';
  for (let index = 0; index < text.length; index += 1) {
    const unit = text.charAt(index);
    const code = unit.charCodeAt(0);
    const mapped = code >= 0xd800 && code <= 0xdfff ? unit : unit.toUpperCase();
    upper += mapped.length === 1 ? mapped : unit;
  }
  return upper;
}

/** NTOWFv2 (MS-NLMP 3.3.2): HMAC-MD5 of the upper-cased user (UpperCase(User), one unit to one) and the domain, keyed by MD4 of the password. */
export function ntowfV2(password: string, user: string, domain: string): Buffer {
  const ntHash = Buffer.from(md4.arrayBuffer(Buffer.from(password, 'utf16le')));
  return hmacMd5(ntHash, Buffer.from(upcaseOneToOne(user) + domain, 'utf16le'));
}

/** The NEGOTIATE_MESSAGE: flags and version, no domain or workstation (MS-NLMP 2.2.1.1). */
export function negotiateMessage(flags = CLIENT_FLAGS): Buffer {
  const message = Buffer.alloc(40);
  SIGNATURE.copy(message, 0);
  message.writeUInt32LE(1, 8);
  message.writeUInt32LE(flags >>> 0, 12);
  // DomainNameFields and WorkstationFields stay empty (offset 40, length 0).
  message.writeUInt32LE(40, 20);
  message.writeUInt32LE(40, 28);
  VERSION.copy(message, 32);
  return message;
}

export interface Challenge {
  readonly flags: number;
  readonly serverChallenge: Buffer;
  readonly targetInfo: Buffer;
  /** MsvAvTimestamp from the target info, when the server sent one (then the client sends a MIC). */
  readonly timestamp?: Buffer;
  /**
   * What the server says it runs (MS-NLMP 2.2.2.10: product major, minor and
   * build, NTLM revision), present when it set NTLMSSP_NEGOTIATE_VERSION.
   * Information only: a server chooses what it writes here.
   */
  readonly version?: { readonly major: number; readonly minor: number; readonly build: number; readonly revision: number };
  /** The server's NetBIOS computer name from the target info (MsvAvNbComputerName), at most 64 characters. */
  readonly computerName?: string;
}

/** Longest name kept from a server's target info: a NetBIOS name is 15 characters, a DNS name 255; this is for display. */
const MAX_NAME_CHARS = 64;

/** Reads a (length, max length, offset) field and returns its bytes, every number checked against the message. */
function field(message: Buffer, at: number, what: string): Buffer {
  if (at + 8 > message.length) throw new NtlmError(`the CHALLENGE message is too short for its ${what} field`);
  const length = message.readUInt16LE(at);
  const offset = message.readUInt32LE(at + 4);
  if (length === 0) return Buffer.alloc(0);
  if (offset > message.length || length > message.length - offset)
    throw new NtlmError(`the CHALLENGE message's ${what} (${length} bytes at ${offset}) lies outside its ${message.length} bytes`);
  return message.subarray(offset, offset + length);
}

/** Walks AV pairs (MS-NLMP 2.2.2.1), bounds-checked; returns them up to MsvAvEOL. */
function avPairs(targetInfo: Buffer): { id: number; value: Buffer }[] {
  const pairs: { id: number; value: Buffer }[] = [];
  let at = 0;
  // Each pair is at least 4 bytes, so the walk ends within length / 4 steps.
  while (at + 4 <= targetInfo.length) {
    const id = targetInfo.readUInt16LE(at);
    const length = targetInfo.readUInt16LE(at + 2);
    if (at + 4 + length > targetInfo.length) throw new NtlmError(`an AV pair (id ${id}, ${length} bytes) runs past the target info`);
    if (id === AvId.eol) return pairs;
    pairs.push({ id, value: targetInfo.subarray(at + 4, at + 4 + length) });
    at += 4 + length;
  }
  throw new NtlmError('the target info has no MsvAvEOL');
}

export function parseChallenge(message: Buffer): Challenge {
  if (message.length < 48 || !message.subarray(0, 8).equals(SIGNATURE)) throw new NtlmError("the server's security blob is not an NTLM CHALLENGE message");
  if (message.readUInt32LE(8) !== 2) throw new NtlmError(`expected an NTLM CHALLENGE (type 2), got type ${message.readUInt32LE(8)}`);
  const flags = message.readUInt32LE(20);
  if ((flags & NegotiateFlag.extendedSessionSecurity) === 0) throw new NtlmError('the server does not offer NTLMv2 extended session security');
  const targetInfo = (flags & NegotiateFlag.targetInfo) !== 0 ? field(message, 40, 'target info') : Buffer.alloc(0);
  const pairs = targetInfo.length > 0 ? avPairs(targetInfo) : [];
  const timestamp = pairs.find((pair) => pair.id === AvId.timestamp && pair.value.length === 8)?.value;
  const name = pairs.find((pair) => pair.id === AvId.nbComputerName)?.value;
  // MS-NLMP 2.2.1.2: the Version field follows TargetInfoFields at offset 48 when NTLMSSP_NEGOTIATE_VERSION is set,
  // and the payload after it; a server that starts its payload at 48 sent no Version, whatever its flags say.
  const payloadStarts = [12, 40].filter((at) => message.readUInt16LE(at) > 0).map((at) => message.readUInt32LE(at + 4));
  const version =
    (flags & NegotiateFlag.version) !== 0 && message.length >= 56 && payloadStarts.every((offset) => offset >= 56)
      ? { major: message.readUInt8(48), minor: message.readUInt8(49), build: message.readUInt16LE(50), revision: message.readUInt8(55) }
      : undefined;
  return {
    flags,
    serverChallenge: Buffer.from(message.subarray(24, 32)),
    targetInfo: Buffer.from(targetInfo),
    ...(timestamp ? { timestamp: Buffer.from(timestamp) } : {}),
    ...(version ? { version } : {}),
    ...(name ? { computerName: name.toString('utf16le').slice(0, MAX_NAME_CHARS) } : {}),
  };
}

/** The target info the client echoes: the server's, with MsvAvFlags saying a MIC follows when one does. */
function clientTargetInfo(serverInfo: Buffer, withMic: boolean): Buffer {
  if (serverInfo.length === 0) return Buffer.alloc(4); // MsvAvEOL alone
  const pairs = avPairs(serverInfo).filter((pair) => !(withMic && pair.id === AvId.flags));
  const existingFlags =
    avPairs(serverInfo)
      .find((pair) => pair.id === AvId.flags && pair.value.length === 4)
      ?.value.readUInt32LE(0) ?? 0;
  const out: Buffer[] = [];
  for (const pair of pairs) {
    const head = Buffer.alloc(4);
    head.writeUInt16LE(pair.id, 0);
    head.writeUInt16LE(pair.value.length, 2);
    out.push(head, pair.value);
  }
  if (withMic) {
    const flagsPair = Buffer.alloc(8);
    flagsPair.writeUInt16LE(AvId.flags, 0);
    flagsPair.writeUInt16LE(4, 2);
    flagsPair.writeUInt32LE((existingFlags | AV_FLAG_MIC) >>> 0, 4);
    out.push(flagsPair);
  }
  out.push(Buffer.alloc(4));
  return Buffer.concat(out);
}

/** The NTLMv2 response's blob ("temp" in MS-NLMP 3.3.2). */
export function ntlmv2Temp(time: Buffer, clientChallenge: Buffer, targetInfo: Buffer): Buffer {
  return Buffer.concat([Buffer.from([1, 1, 0, 0, 0, 0, 0, 0]), time, clientChallenge, Buffer.alloc(4), targetInfo, Buffer.alloc(4)]);
}

export interface NtlmV2Proof {
  readonly ntProofStr: Buffer;
  /** SessionBaseKey, which for NTLMv2 is also the KeyExchangeKey. */
  readonly sessionBaseKey: Buffer;
}

export function ntlmv2Proof(responseKeyNt: Buffer, serverChallenge: Buffer, temp: Buffer): NtlmV2Proof {
  const ntProofStr = hmacMd5(responseKeyNt, serverChallenge, temp);
  return { ntProofStr, sessionBaseKey: hmacMd5(responseKeyNt, ntProofStr) };
}

export interface Credentials {
  readonly user: string;
  readonly password: string;
  readonly domain: string;
  readonly workstation: string;
}

export interface Authentication {
  readonly message: Buffer;
  /** The key SMB signs with (2.x) and derives its keys from (3.x). */
  readonly sessionKey: Buffer;
}

/** Windows FILETIME now: 100 ns ticks since 1601. */
function filetimeNow(): Buffer {
  const time = Buffer.alloc(8);
  time.writeBigUInt64LE(BigInt(Date.now()) * 10_000n + 116_444_736_000_000_000n);
  return time;
}

/**
 * The AUTHENTICATE_MESSAGE (MS-NLMP 2.2.1.3) for a CHALLENGE, and the
 * session key it establishes. `negotiate` and `challenge` are the raw
 * messages exchanged before, for the MIC.
 */
export function authenticateMessage(
  credentials: Credentials,
  negotiate: Buffer,
  challengeMessage: Buffer,
  random: { clientChallenge?: Buffer; exportedSessionKey?: Buffer } = {},
): Authentication {
  const challenge = parseChallenge(challengeMessage);
  const withMic = challenge.timestamp !== undefined;
  const clientChallenge = random.clientChallenge ?? randomBytes(8);
  const responseKeyNt = ntowfV2(credentials.password, credentials.user, credentials.domain);
  const temp = ntlmv2Temp(challenge.timestamp ?? filetimeNow(), clientChallenge, clientTargetInfo(challenge.targetInfo, withMic));
  const { ntProofStr, sessionBaseKey } = ntlmv2Proof(responseKeyNt, challenge.serverChallenge, temp);
  const ntResponse = Buffer.concat([ntProofStr, temp]);
  // With a timestamp (and so a MIC) the LMv2 response is zeros (MS-NLMP 3.1.5.1.2).
  const lmResponse = withMic ? Buffer.alloc(24) : Buffer.concat([hmacMd5(responseKeyNt, challenge.serverChallenge, clientChallenge), clientChallenge]);
  const keyExchange = (challenge.flags & NegotiateFlag.keyExchange) !== 0;
  const exportedSessionKey = keyExchange ? (random.exportedSessionKey ?? randomBytes(16)) : sessionBaseKey;
  const encryptedKey = keyExchange ? rc4(sessionBaseKey, exportedSessionKey) : Buffer.alloc(0);
  const flags = (CLIENT_FLAGS & (challenge.flags | NegotiateFlag.version)) >>> 0;

  const domain = Buffer.from(credentials.domain, 'utf16le');
  const user = Buffer.from(credentials.user, 'utf16le');
  const workstation = Buffer.from(upcaseOneToOne(credentials.workstation), 'utf16le');
  const payloads = [lmResponse, ntResponse, domain, user, workstation, encryptedKey];
  const HEADER = 88;
  const message = Buffer.alloc(HEADER + payloads.reduce((sum, payload) => sum + payload.length, 0));
  SIGNATURE.copy(message, 0);
  message.writeUInt32LE(3, 8);
  let offset = HEADER;
  // Field order in the header: LM, NT, domain, user, workstation, session key.
  [12, 20, 28, 36, 44, 52].forEach((at, index) => {
    const payload = payloads[index] ?? Buffer.alloc(0);
    if (payload.length > 0xffff) throw new NtlmError('an AUTHENTICATE field is longer than 65535 bytes');
    message.writeUInt16LE(payload.length, at);
    message.writeUInt16LE(payload.length, at + 2);
    message.writeUInt32LE(offset, at + 4);
    payload.copy(message, offset);
    offset += payload.length;
  });
  message.writeUInt32LE(flags, 60);
  VERSION.copy(message, 64);
  if (withMic) hmacMd5(exportedSessionKey, negotiate, challengeMessage, message).copy(message, 72);
  return { message, sessionKey: exportedSessionKey };
}
