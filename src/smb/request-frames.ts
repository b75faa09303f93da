// A compound of requests as frames for the wire: each message's header
// (its message id, credit charge and the credits asked for), its padding,
// and its protection: signed (MS-SMB2 3.2.4.1.1), or the whole compound
// sealed in one TRANSFORM frame (3.2.4.1.8). Also the request and reply
// shapes every layer above the connection speaks.

import type { DataRange, FramePart, NativeSignature } from './frame-writer.js';
import { SmbError } from './errors.js';
import type { Smb2Header } from './protocol.js';
import { Dialect, encodeHeader, HeaderFlag, SMB2_HEADER_BYTES } from './protocol.js';
import type { Signer } from './security/signing.js';
import { prepareToSign, signMessage } from './security/signing.js';
import type { Sealer } from './security/transform.js';

export interface SmbResponse {
  readonly header: Smb2Header;
  /** The message after the 64-byte header. */
  readonly body: Buffer;
  /** The whole message, header included (for the preauth hash and late signature checks). */
  readonly message: Buffer;
  /** It arrived inside a TRANSFORM_HEADER that opened under the session's key. */
  readonly encrypted: boolean;
}

/**
 * How a session protects its messages once its keys exist (MS-SMB2
 * 3.2.4.1.1, 3.2.4.1.8, 3.2.5.1.1-3). The connection signs, seals, opens
 * and verifies with these and knows no algorithm itself.
 */
export interface ConnectionSecurity {
  /** Signs requests and checks signed responses. */
  readonly signer?: Signer;
  /** Sign every request, and accept no unsigned response (the session requires signing). */
  signAll: boolean;
  /** Seals requests and opens TRANSFORM frames. */
  readonly sealer?: Sealer;
  /** Seal every request (the session, the share or the person asked for encryption). */
  sealAll: boolean;
}

export interface RequestSpec {
  readonly command: number;
  /** The request body after the header (for WRITE: the fixed part only). */
  readonly body: Buffer;
  /** Bytes sent after the body without copying (WRITE data): one buffer, pieces, or a range of a local file or of the test pattern (see sendsRanges). */
  readonly payload?: Buffer | readonly Buffer[] | DataRange;
  /**
   * The payload's buffers are the caller's to lose once the request is sent: sealing may encrypt them in
   * place (a write's pooled source pieces, refilled before they are sent again).
   */
  readonly spendPayload?: boolean;
  /** Credits this request costs (1, or ceil(bytes / 64 KiB) for large reads and writes). */
  readonly creditCharge?: number;
  readonly treeId?: number;
  /** Statuses other than success that the caller handles itself (e.g. STATUS_NO_MORE_FILES). */
  readonly okStatuses?: readonly number[];
  /** Any status answers the request (the caller reads it): a compound's related CLOSE, checked by closeIfLeft. */
  readonly anyStatus?: boolean;
  /** A short description for error messages: "open scratch/file001.doc". */
  readonly what: string;
  /** Sign this request even when the session does not sign everything (3.1.1 TREE_CONNECT). */
  readonly sign?: boolean;
  /** Sees the request's whole message as sent, before any sealing (the preauth hash). */
  readonly onWire?: (message: Buffer) => void;
  /** The largest reply this request can bring, header included (default DEFAULT_REPLY_BYTES); READ: its length and the header. */
  readonly replyBytes?: number;
}

/** What a control request's reply may take: NEGOTIATE, SESSION_SETUP (a Kerberos ticket is ~12 KiB), CREATE with contexts. */
export const DEFAULT_REPLY_BYTES = 64 * 1024;

export interface RequestOptions {
  readonly signal?: AbortSignal;
  readonly timeoutMs?: number;
}

const isPieces = (payload: NonNullable<RequestSpec['payload']>): payload is readonly Buffer[] => Array.isArray(payload);

/** A request's data as frame parts: none, its pieces, or the one buffer, file range or pattern range. */
function payloadParts(payload: RequestSpec['payload']): readonly FramePart[] {
  if (payload === undefined) return [];
  return isPieces(payload) ? payload : [payload];
}

/** How many bytes a request's data is. */
export function payloadBytes(payload: RequestSpec['payload']): number {
  return payloadParts(payload).reduce((sum, part) => sum + part.length, 0);
}

/** The file id of a related compound request: "the handle the previous request opened". */
export const RELATED_FILE_ID = Buffer.alloc(16, 0xff);

/** A request the connection sent and awaits the final reply to. */
export interface PendingRequest {
  readonly charge: number;
  readonly spec: RequestSpec;
  /** Went out sealed: its answer must come sealed too. */
  readonly sealed: boolean;
  /** Went out signed: its answer must come signed (or sealed). */
  readonly signed: boolean;
  readonly replyBytes: number;
  /** The request's size on the wire (for the connection's rate). */
  readonly sentBytes: number;
  /** The session the request was sent on: its reply is verified against that session (MS-SMB2 3.2.5.1.3), whatever the reply's own header says. */
  readonly sessionId: bigint;
  /** When it was handed to the writer (performance.now()). */
  readonly sentAt: number;
  interims: number;
  settled: boolean;
  /** A related request's chain head (the compound's first request). */
  readonly head?: PendingRequest;
  /** The status the request was answered with, once it was. */
  answeredStatus?: number;
  resolve(response: SmbResponse): void;
  reject(error: unknown): void;
  timer?: NodeJS.Timeout;
}

/** One message of a framed compound, as the connection tracks it until its reply. */
export interface FramedMessage {
  readonly messageId: bigint;
  readonly charge: number;
  readonly spec: RequestSpec;
  readonly signed: boolean;
  /** The message's bytes before any sealing (for the connection's rate). */
  readonly messageBytes: number;
}

export interface FramingContext {
  /** The negotiated dialect (before NEGOTIATE completes, charges are sent as 0: MS-SMB2 3.2.4.1.5). */
  readonly dialect: number;
  readonly sessionId: bigint;
  /** The credits to ask for with a request of this charge. */
  readonly creditRequest: (charge: number) => number;
  readonly security: ConnectionSecurity | undefined;
  /** The sender addon writes the frames: it can sign a lone message whose data is a range as it reads it (AES-GMAC). */
  readonly nativeWriter: boolean;
}

/** The frames of a compound whose message ids were granted (`ids`, one per spec), and what each message is. */
export function frameRequests(
  specs: readonly RequestSpec[],
  ids: readonly bigint[],
  context: FramingContext,
): { frames: FramePart[]; nativeSign: NativeSignature | undefined; messages: FramedMessage[]; sealed: boolean } {
  const { security } = context;
  const sealed = security?.sealAll === true && security.sealer !== undefined;
  let frames: FramePart[] = [];
  const spend = new Set<Buffer>();
  // A lone message whose data is a range, signed by the sender addon as it reads it (AES-GMAC only).
  let nativeSign: NativeSignature | undefined;
  const messages = specs.map((spec, index): FramedMessage => {
    const messageId = ids[index] ?? 0n;
    const charge = spec.creditCharge ?? 1;
    const payload = payloadParts(spec.payload);
    if (spec.spendPayload) for (const part of payload) if (Buffer.isBuffer(part)) spend.add(part);
    const messageBytes = SMB2_HEADER_BYTES + spec.body.length + payloadBytes(spec.payload);
    const isLast = index === specs.length - 1;
    const padding = isLast ? 0 : (8 - (messageBytes % 8)) % 8;
    const header = encodeHeader({
      creditCharge: context.dialect >= Dialect.smb210 ? charge : 0,
      command: spec.command,
      credits: context.creditRequest(charge),
      flags: index > 0 ? HeaderFlag.relatedOperations : 0,
      nextCommand: isLast ? 0 : messageBytes + padding,
      messageId,
      treeId: spec.treeId ?? 0,
      sessionId: context.sessionId,
    });
    const pieces: FramePart[] = [header, spec.body, ...payload];
    if (padding) pieces.push(Buffer.alloc(padding));
    // A sealed message needs no signature: the cipher authenticates it (MS-SMB2 3.2.4.1.8).
    const sign = !sealed && security?.signer !== undefined && (security.signAll || spec.sign === true);
    if (sign || sealed) {
      const inMemory = pieces.every((piece): piece is Buffer => Buffer.isBuffer(piece));
      const gmac = sign && !inMemory && specs.length === 1 && context.nativeWriter ? security?.signer?.gmacFor?.(header) : undefined;
      if (gmac) {
        prepareToSign(header);
        // The header follows the transport header in the frame the writer gets.
        nativeSign = { ...gmac, header: 1 };
      } else if (!inMemory) {
        throw new SmbError(
          'protocol',
          `Cannot sign or seal ${spec.what}: its data was given as a file or pattern range.`,
          'Give the data in memory while the session signs or encrypts.',
        );
      } else if (sign && security?.signer) {
        signMessage(security.signer, pieces);
      }
    }
    spec.onWire?.(Buffer.concat(pieces as Buffer[]));
    frames.push(...pieces);
    return { messageId, charge, spec, signed: sign, messageBytes };
  });
  // The whole compound goes in one TRANSFORM frame (MS-SMB2 3.2.4.1.8).
  if (sealed && security?.sealer) frames = security.sealer.seal(frames as Buffer[], undefined, spend);
  return { frames, nativeSign, messages, sealed };
}
