// One TCP connection to an SMB2 server: frames messages, numbers them within
// the server's credit grant, matches replies (interim STATUS_PENDING ones
// included) and turns failures into typed errors.

import type { Socket } from 'node:net';
import { connect } from 'node:net';
import { CreditStarvationError, CreditWindow } from './credits.js';
import { cancelledError, errorForStatus, SmbError } from './errors.js';
import { FrameReader } from './framing.js';
import type { DataRange, FramePart, FrameWriter, NativeSignature, WriterChoice } from './frame-writer.js';
import { openFrameWriter } from './frame-writer.js';
import type { Smb2Header } from './protocol.js';
import { Command, decodeHeader, Dialect, encodeHeader, HeaderFlag, SMB2_HEADER_BYTES, splitCompound, Status, transportHeader } from './protocol.js';
import type { Signer } from './security/signing.js';
import { isSigned, prepareToSign, signMessage, verifyMessage } from './security/signing.js';
import type { Sealer } from './security/transform.js';
import { isTransformed, TransformError } from './security/transform.js';

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
  /** Credits this request costs (1, or ceil(bytes / 64 KiB) for large reads and writes). */
  readonly creditCharge?: number;
  readonly treeId?: number;
  /** Statuses other than success that the caller handles itself (e.g. STATUS_NO_MORE_FILES). */
  readonly okStatuses?: readonly number[];
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
/** Room beyond the replies owed: a TRANSFORM header, compound padding, an unsolicited oplock break. */
const FRAME_SLACK_BYTES = 4096;
/** MS-SMB2 2.2.23: oplock and lease break notifications carry this message id; they answer nothing. */
const UNSOLICITED_MESSAGE_ID = 0xffffffffffffffffn;
/**
 * Unsolicited messages (oplock and lease break notifications, MS-SMB2
 * 2.2.23, 2.2.24) are small, and Pipefill asks for no oplock or lease, so a
 * server has little reason to send any: one larger than this, or more than
 * MAX_UNSOLICITED_MESSAGES of them on a connection, fails it.
 */
const MAX_UNSOLICITED_MESSAGE_BYTES = 1024;
const MAX_UNSOLICITED_MESSAGES = 64;
/** A server sends one interim reply per request it takes async (MS-SMB2 3.3.4.2); a stream of them is not progress. */
const MAX_INTERIM_REPLIES = 4;
/**
 * What counts as the server making progress: a final reply, or this many
 * bytes of a reply arriving. A single byte does not: a server trickling a
 * byte every half second would otherwise hold a request for ever.
 */
const PROGRESS_BYTES = 16 * 1024;

export interface RequestOptions {
  readonly signal?: AbortSignal;
  readonly timeoutMs?: number;
}

interface Pending {
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
  resolve(response: SmbResponse): void;
  reject(error: unknown): void;
  timer?: NodeJS.Timeout;
}

/**
 * A connection with requests pending and no progress (see PROGRESS_BYTES)
 * for this long is dead. Silence, not a per-request deadline: on a slow link
 * a deep pipeline's last request rightly waits a minute behind the others
 * (32 MiB at 5 Mb/s), while the replies ahead of it keep arriving. 9 s
 * outlasts a 5 s blackhole (Linux retransmits at 0.2, 0.6, 1.4, 3.0 and
 * 6.2 s, so the first retransmission after the link returns is ~6.2 s in,
 * and 16 KiB arrive within four round trips of slow start after it).
 */
export const SILENCE_TIMEOUT_MS = 9_000;
/**
 * A server says nothing about a write until the whole request has arrived,
 * so the silence allowed grows with the request bytes sent since it last
 * spoke, at the path's rate: an eighth of the best rate this connection has
 * shown (room for the rate to fall that far, a window-limited copy whose
 * round trip grows ninefold), and never above this slowest link rate (1 Mb/s),
 * where a 4 MiB write is 33 s of rightful silence. On a fast path a stalled
 * write pipeline is therefore called dead after about the base, not minutes.
 */
export const SLOWEST_LINK_BYTES_PER_MS = 1e6 / 8 / 1000;
const RATE_MARGIN = 8;
/** The span over which the connection's rate is measured. */
const RATE_WINDOW_MS = 500;

/** How long a server may stay silent after `bytesSent` request bytes went out since it last spoke, at `bestBytesPerMs` (pure). */
export function silenceAllowanceMs(baseMs: number, bytesSent: number, bestBytesPerMs = 0): number {
  return baseMs + bytesSent / Math.max(SLOWEST_LINK_BYTES_PER_MS, bestBytesPerMs / RATE_MARGIN);
}
const WATCHDOG_INTERVAL_MS = 250;

function integrityError(message: string, cause?: unknown): SmbError {
  return new SmbError(
    'integrity',
    message,
    'Something between Pipefill and the server changed the traffic, or the server signs wrongly: the copy stopped before using any of it.',
    undefined,
    cause === undefined ? undefined : { cause },
  );
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

export class SmbConnection {
  private readonly pending = new Map<bigint, Pending>();
  private closedError: SmbError | undefined;
  readonly credits = new CreditWindow();
  /** Negotiated dialect; before NEGOTIATE completes, charges are sent as 0 (MS-SMB2 3.2.4.1.5). */
  dialect = 0;
  sessionId = 0n;
  /** Credits Pipefill tries to hold (granted plus in flight); the transfer engine raises it to its pipeline's need. */
  creditTarget = 64;
  private lastHeardAt = performance.now();
  /** Request bytes written since the server last made progress. */
  private bytesSentSinceHeard = 0;
  /** Bytes received since the server last made progress. */
  private bytesSinceProgress = 0;
  /**
   * The watchdog's state before bytes of a frame not yet whole counted as
   * progress: put back if the frame turns out to answer nothing (unsolicited
   * messages are not progress, however large).
   */
  private beforeByteProgress: { readonly lastHeardAt: number; readonly bytesSentSinceHeard: number } | undefined;
  /** A message of the frame being handled answered (or was an interim reply to) a request. */
  private frameAnswered = false;
  private unsolicitedMessages = 0;
  /** Request and reply bytes of finished requests in the current rate window, and the best rate seen (bytes per ms). */
  private rateWindow = { startedAt: performance.now(), bytes: 0 };
  private bestBytesPerMs = 0;
  private fastestMs = Infinity;
  /** What the replies still owed can bring back, in all (bounds the next frame). */
  private replyBytesOwed = 0;
  private readonly watchdog: NodeJS.Timeout;
  private readonly writer: FrameWriter;
  /** Set by the session once its keys exist; until then nothing is signed or sealed. */
  security: ConnectionSecurity | undefined;

  private constructor(
    private readonly socket: Socket,
    private readonly reader: FrameReader,
    readonly host: string,
    readonly port: number,
    private readonly silenceTimeoutMs: number,
    writer: WriterChoice,
  ) {
    socket.setNoDelay(true);
    this.writer = openFrameWriter(
      socket,
      (message) =>
        this.fail(new SmbError('connection-lost', `Sending to ${host}:${port} failed: ${message}.`, 'Check that the server is running and reachable.')),
      writer,
    );
    this.watchdog = setInterval(() => this.checkSilence(), Math.min(WATCHDOG_INTERVAL_MS, silenceTimeoutMs / 4));
    this.watchdog.unref();
    socket.on('error', (error) =>
      this.fail(
        new SmbError(
          'connection-lost',
          `The connection to ${host}:${port} failed: ${error.message}.`,
          'Check that the server is running and reachable.',
          undefined,
          { cause: error },
        ),
      ),
    );
    socket.on('close', () =>
      this.fail(
        new SmbError(
          'connection-lost',
          `The server ${host}:${port} closed the connection.`,
          'The server may have stopped or dropped the session; its log says why.',
        ),
      ),
    );
  }

  /** How requests reach the socket: `native` (Pipefill's sender addon) or `socket` (Node's own). */
  get writerKind(): FrameWriter['kind'] {
    return this.writer.kind;
  }

  /**
   * Whether WRITE data may be given as a range of a local file or of the
   * test pattern (the sender addon reads or makes it as it sends). While
   * every message is signed, only with AES-GMAC, which the addon computes
   * over the range before sending it; never while messages are sealed (the
   * cipher's output is what goes out).
   */
  get sendsRanges(): boolean {
    const security = this.security;
    return this.writer.kind === 'native' && !security?.sealAll && (!security?.signAll || security.signer?.gmacFor !== undefined);
  }

  /** The TCP connection's own addresses, to find it in the kernel's socket table. */
  /**
   * The quickest request-to-answer time seen on this connection, ms: the
   * path's round trip plus the server's least work, so an upper bound of
   * the RTT that tightens with every exchange (negotiate, session set-up and
   * tree connect already give one before any data moves). Undefined before
   * the first answer.
   */
  get fastestExchangeMs(): number | undefined {
    return Number.isFinite(this.fastestMs) ? this.fastestMs : undefined;
  }

  get endpoints(): { readonly localAddress: string; readonly localPort: number; readonly remoteAddress: string; readonly remotePort: number } {
    return {
      localAddress: this.socket.localAddress ?? '',
      localPort: this.socket.localPort ?? 0,
      remoteAddress: this.socket.remoteAddress ?? '',
      remotePort: this.socket.remotePort ?? 0,
    };
  }

  static connect(
    host: string,
    port: number,
    options: { timeoutMs?: number; signal?: AbortSignal; silenceTimeoutMs?: number; writer?: WriterChoice } = {},
  ): Promise<SmbConnection> {
    const timeoutMs = options.timeoutMs ?? 5_000;
    return new Promise((resolve, reject) => {
      if (options.signal?.aborted) {
        reject(cancelledError());
        return;
      }
      const reader = new FrameReader();
      let connection: SmbConnection | undefined;
      // The socket reads into buffers the frame reader picks: large replies land in place.
      // (Node honours `onread` in net.connect(), not in socket.connect() on a Socket made first.)
      const socket = connect({
        port,
        host,
        onread: {
          buffer: () => reader.nextBuffer(),
          callback: (bytes: number) => {
            connection?.onBytes(bytes);
            return true;
          },
        },
      });
      const finish = (error?: SmbError) => {
        clearTimeout(timer);
        options.signal?.removeEventListener('abort', onAbort);
        socket.removeAllListeners('connect');
        socket.removeAllListeners('error');
        if (error) {
          socket.destroy();
          reject(error);
        } else {
          try {
            connection = new SmbConnection(socket, reader, host, port, options.silenceTimeoutMs ?? SILENCE_TIMEOUT_MS, options.writer ?? 'auto');
          } catch (error) {
            socket.destroy();
            reject(
              new SmbError(
                'protocol',
                `Pipefill cannot send on this connection: ${error instanceof Error ? error.message : String(error)}.`,
                'Use the plain Node sender (PIPEFILL_NATIVE_SEND=0).',
                undefined,
                { cause: error },
              ),
            );
            return;
          }
          resolve(connection);
        }
      };
      const onAbort = () => finish(cancelledError());
      const timer = setTimeout(
        () =>
          finish(
            new SmbError(
              'unreachable',
              `No answer from ${host}:${port} within ${timeoutMs / 1000} s.`,
              'Check the server name and port, and that a firewall lets SMB (TCP 445) through.',
            ),
          ),
        timeoutMs,
      );
      options.signal?.addEventListener('abort', onAbort, { once: true });
      socket.once('connect', () => finish());
      socket.once('error', (error: NodeJS.ErrnoException) => {
        const refused = error.code === 'ECONNREFUSED';
        finish(
          new SmbError(
            'unreachable',
            refused ? `Nothing is listening on ${host}:${port} (connection refused).` : `Cannot reach ${host}:${port}: ${error.message}.`,
            refused ? 'Check the port, and that the SMB server is running.' : 'Check the server name and the network path to it.',
            undefined,
            { cause: error },
          ),
        );
      });
    });
  }

  /** Hands a large reply's memory back for reuse; see FrameReader.recycle. */
  recycle(data: Buffer): void {
    this.reader.recycle(data.buffer);
  }

  get isOpen(): boolean {
    return this.closedError === undefined;
  }

  /** Sends one request and waits for its final response. */
  async request(spec: RequestSpec, options: RequestOptions = {}): Promise<SmbResponse> {
    const [response] = await this.send([spec], options);
    if (!response) throw new SmbError('protocol', `No response to ${spec.what}.`, 'The server log may say more.');
    return response;
  }

  /**
   * Sends requests as one compound (MS-SMB2 3.2.4.1.4): the later ones are
   * related to the first and use its file id (pass RELATED_FILE_ID).
   * One round trip for all of them.
   */
  compound(specs: readonly RequestSpec[], options: RequestOptions = {}): Promise<SmbResponse[]> {
    return this.send(specs, options);
  }

  private async send(specs: readonly RequestSpec[], options: RequestOptions): Promise<SmbResponse[]> {
    this.throwIfClosed();
    if (options.signal?.aborted) throw cancelledError();
    const ids: bigint[] = [];
    try {
      for (const spec of specs) ids.push(await this.credits.acquire(spec.creditCharge ?? 1));
    } catch (error) {
      if (error instanceof CreditStarvationError)
        throw new SmbError('protocol', error.message, 'The server stopped granting SMB2 credits; check its credit settings (smb2 max credits).', undefined, {
          cause: error,
        });
      throw error;
    }
    this.throwIfClosed();

    const security = this.security;
    const seal = security?.sealAll === true && security.sealer !== undefined;
    let frames: FramePart[] = [];
    // A lone message whose data is a range, signed by the sender addon as it reads it (AES-GMAC only).
    let nativeSign: NativeSignature | undefined;
    const results = specs.map((spec, index) => {
      const messageId = ids[index] ?? 0n;
      const charge = spec.creditCharge ?? 1;
      const payload = payloadParts(spec.payload);
      const messageBytes = SMB2_HEADER_BYTES + spec.body.length + payloadBytes(spec.payload);
      const isLast = index === specs.length - 1;
      const padding = isLast ? 0 : (8 - (messageBytes % 8)) % 8;
      const header = encodeHeader({
        creditCharge: this.dialect >= Dialect.smb210 ? charge : 0,
        command: spec.command,
        credits: this.creditRequest(charge),
        flags: index > 0 ? HeaderFlag.relatedOperations : 0,
        nextCommand: isLast ? 0 : messageBytes + padding,
        messageId,
        treeId: spec.treeId ?? 0,
        sessionId: this.sessionId,
      });
      const pieces: FramePart[] = [header, spec.body, ...payload];
      if (padding) pieces.push(Buffer.alloc(padding));
      // A sealed message needs no signature: the cipher authenticates it (MS-SMB2 3.2.4.1.8).
      const sign = !seal && security?.signer !== undefined && (security.signAll || spec.sign === true);
      if (sign || seal) {
        const inMemory = pieces.every((piece): piece is Buffer => Buffer.isBuffer(piece));
        const gmac = sign && !inMemory && specs.length === 1 && this.writer.kind === 'native' ? security?.signer?.gmacFor?.(header) : undefined;
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
      return new Promise<SmbResponse>((resolve, reject) => {
        const replyBytes = spec.replyBytes ?? DEFAULT_REPLY_BYTES;
        const pending: Pending = {
          charge,
          spec,
          sealed: seal,
          signed: sign,
          replyBytes,
          sentBytes: messageBytes,
          sessionId: this.sessionId,
          sentAt: performance.now(),
          interims: 0,
          settled: false,
          resolve,
          reject,
        };
        if (this.pending.size === 0) this.madeProgress(); // silence counts from the first request out
        this.pending.set(messageId, pending);
        this.owe(replyBytes);
        const timeoutMs = options.timeoutMs;
        if (timeoutMs !== undefined) {
          // A caller's own deadline (clean-up paths that must end promptly).
          pending.timer = setTimeout(() => {
            this.settle(
              pending,
              new SmbError(
                'timeout',
                `The server did not answer ${spec.what} within ${timeoutMs / 1000} s.`,
                'The server or the path to it may be overloaded; try again.',
              ),
            );
          }, timeoutMs);
        }
      });
    });
    // The whole compound goes in one TRANSFORM frame (MS-SMB2 3.2.4.1.8).
    if (seal && security?.sealer) frames = security.sealer.seal(frames as Buffer[]);

    const total = frames.reduce((sum, frame) => sum + frame.length, 0);
    this.bytesSentSinceHeard += total;
    try {
      this.writer.write([transportHeader(total), ...frames], nativeSign);
    } catch (error) {
      this.fail(
        new SmbError(
          'connection-lost',
          `Sending to ${this.host}:${this.port} failed: ${error instanceof Error ? error.message : String(error)}.`,
          'Check that the server is running and reachable.',
          undefined,
          { cause: error },
        ),
      );
    }

    if (!options.signal) return Promise.all(results);
    // A cancelled caller stops waiting; the requests stay pending so their
    // replies still return credits and nothing is miscounted.
    const signal = options.signal;
    return new Promise<SmbResponse[]>((resolve, reject) => {
      const onAbort = () => reject(cancelledError());
      signal.addEventListener('abort', onAbort, { once: true });
      Promise.all(results).then(
        (value) => {
          signal.removeEventListener('abort', onAbort);
          resolve(value);
        },
        (error: unknown) => {
          signal.removeEventListener('abort', onAbort);
          reject(error);
        },
      );
    });
  }

  /** Asks for enough credits to keep `creditTarget` granted or in flight, and at least this request's charge back. */
  private creditRequest(charge: number): number {
    const held = this.credits.credits + this.credits.creditsInFlight;
    return Math.max(charge, Math.min(8192, charge + Math.max(0, this.creditTarget - held)));
  }

  private checkSilence(): void {
    const allowedMs = silenceAllowanceMs(this.silenceTimeoutMs, this.bytesSentSinceHeard, this.bestBytesPerMs);
    const silentMs = performance.now() - this.lastHeardAt;
    if (this.pending.size === 0 || silentMs < allowedMs) return;
    const trickled = this.bytesSinceProgress > 0 ? ` (only ${this.bytesSinceProgress} bytes, and no answer)` : '';
    this.fail(
      new SmbError(
        'timeout',
        `The server ${this.host}:${this.port} has made no progress for ${Math.round(silentMs / 100) / 10} s with requests outstanding${trickled}.`,
        'The server or the path to it has stalled; check both and try again.',
      ),
    );
    this.socket.destroy();
  }

  private madeProgress(): void {
    this.lastHeardAt = performance.now();
    this.bytesSentSinceHeard = 0;
    this.bytesSinceProgress = 0;
    this.beforeByteProgress = undefined;
  }

  /** Part of a large frame arrived: progress for now, taken back if the frame answers nothing. */
  private madeByteProgress(): void {
    this.beforeByteProgress ??= { lastHeardAt: this.lastHeardAt, bytesSentSinceHeard: this.bytesSentSinceHeard };
    this.lastHeardAt = performance.now();
    this.bytesSentSinceHeard = 0;
    this.bytesSinceProgress = 0;
  }

  /** A request finished: its bytes count toward the connection's rate. */
  private delivered(bytes: number): void {
    const now = performance.now();
    this.rateWindow.bytes += bytes;
    const elapsed = now - this.rateWindow.startedAt;
    if (elapsed < RATE_WINDOW_MS) return;
    this.bestBytesPerMs = Math.max(this.bestBytesPerMs, this.rateWindow.bytes / elapsed);
    this.rateWindow = { startedAt: now, bytes: 0 };
  }

  private owe(bytes: number): void {
    this.replyBytesOwed = Math.max(0, this.replyBytesOwed + bytes);
    this.reader.maxFrameBytes = this.replyBytesOwed + FRAME_SLACK_BYTES;
  }

  private onBytes(bytes: number): void {
    this.bytesSinceProgress += bytes;
    let frames: Buffer[];
    try {
      frames = this.reader.onRead(bytes);
    } catch (error) {
      this.fail(
        new SmbError('protocol', `The server sent data Pipefill cannot frame: ${String(error)}.`, 'Is this port an SMB server?', undefined, { cause: error }),
      );
      this.socket.destroy();
      return;
    }
    for (const frame of frames) {
      let plain = frame;
      const encrypted = isTransformed(frame);
      if (encrypted) {
        const sealer = this.security?.sealer;
        if (!sealer) {
          this.failProtocol(
            new SmbError(
              'protocol',
              'The server sent an encrypted message before any session key existed.',
              'The server or something on the path is misbehaving.',
            ),
          );
          return;
        }
        try {
          plain = sealer.open(frame, (length) => this.reader.allocate(length));
        } catch (error) {
          const reason = error instanceof TransformError ? error.message : String(error);
          this.failProtocol(integrityError(`An encrypted reply from ${this.host}:${this.port} did not open: ${reason}.`, error));
          return;
        }
        // The ciphertext is done with (unless it was opened in place); its memory can take the next large reply.
        if (plain.buffer !== frame.buffer) this.reader.recycle(frame.buffer);
      }
      let messages: Buffer[];
      try {
        messages = splitCompound(plain);
      } catch (error) {
        this.failProtocol(
          new SmbError('protocol', `The server sent a malformed reply: ${String(error)}.`, 'Is this port an SMB2 server?', undefined, { cause: error }),
        );
        return;
      }
      this.frameAnswered = false;
      for (const message of messages) {
        if (!this.onMessage(message, encrypted)) return;
      }
      if (!this.frameAnswered && this.beforeByteProgress) {
        // A frame that answered no request was no progress, however many bytes it took.
        this.lastHeardAt = this.beforeByteProgress.lastHeardAt;
        this.bytesSentSinceHeard = this.beforeByteProgress.bytesSentSinceHeard;
        this.beforeByteProgress = undefined;
      }
    }
    // Bytes of a frame still arriving count, but only of one too large to be an unsolicited message (those are refused
    // above that size): it can only be a reply. Taken back above if, once whole, it answered nothing.
    if (this.bytesSinceProgress >= PROGRESS_BYTES && this.reader.partialFrameBytes() > MAX_UNSOLICITED_MESSAGE_BYTES) this.madeByteProgress();
  }

  private failProtocol(error: SmbError): void {
    this.fail(error);
    this.socket.destroy();
  }

  /** Handles one received message; false when it failed the connection (stop reading the frame). */
  private onMessage(message: Buffer, encrypted: boolean): boolean {
    let header: Smb2Header;
    try {
      header = decodeHeader(message);
    } catch (error) {
      this.failProtocol(
        new SmbError(
          'protocol',
          `The server sent something that is not SMB2: ${String(error)}.`,
          'Is this port an SMB2 server (SMB1-only servers are not supported)?',
          undefined,
          { cause: error },
        ),
      );
      return false;
    }
    if (header.messageId === UNSOLICITED_MESSAGE_ID) return this.onUnsolicited(message, header, encrypted);
    const pending = this.pending.get(header.messageId);
    const interim = header.status === Status.pending && (header.flags & HeaderFlag.asyncCommand) !== 0;
    if (!this.checkIntegrity(message, header, pending, encrypted, interim)) return false;
    if (!pending) {
      this.failProtocol(
        new SmbError(
          'protocol',
          `The server sent a reply to message ${header.messageId}, which Pipefill never sent or has had its answer to.`,
          'The server, or something on the path to it, is misbehaving.',
        ),
      );
      return false;
    }
    if (pending && header.command !== pending.spec.command) {
      this.failProtocol(
        new SmbError(
          'protocol',
          `The server answered ${pending.spec.what} with a reply of another command (0x${header.command.toString(16)}).`,
          'The server, or something on the path to it, is misbehaving.',
        ),
      );
      return false;
    }
    if (interim) {
      if (pending && ++pending.interims > MAX_INTERIM_REPLIES) {
        this.failProtocol(
          new SmbError(
            'protocol',
            `The server sent ${pending.interims} interim replies to ${pending.spec.what} and no answer.`,
            'The server, or something on the path to it, is misbehaving.',
          ),
        );
        return false;
      }
      // The server has the request and will answer later; its grant counts now.
      this.credits.onResponse(header.credits, 0);
      this.frameAnswered = true;
      return true;
    }
    this.credits.onResponse(header.credits, pending.charge);
    this.frameAnswered = true;
    this.pending.delete(header.messageId);
    this.owe(-pending.replyBytes);
    this.delivered(pending.sentBytes + message.length);
    this.madeProgress();
    // A request taken async waited on the server, not the path: only direct answers time the round trip.
    if (pending.interims === 0) this.fastestMs = Math.min(this.fastestMs, performance.now() - pending.sentAt);
    const body = message.subarray(SMB2_HEADER_BYTES);
    const ok = header.status === Status.success || pending.spec.okStatuses?.includes(header.status) === true;
    this.settle(pending, ok ? undefined : errorForStatus(header.status, pending.spec.what), { header, body, message, encrypted });
    return true;
  }

  /**
   * A message that answers nothing (MessageId all ones: an oplock or lease
   * break). It is never progress and never trusted: one larger than a break
   * notification, or too many of them, fails the connection; on a session
   * that seals or signs everything, one that is not sealed, or not signed
   * with a signature that verifies, is dropped unread (its credits too),
   * since anyone on the path could have sent it. Pipefill asks for no oplock
   * or lease, so nothing in one is acted on; a trusted one's credits count.
   */
  private onUnsolicited(message: Buffer, header: Smb2Header, encrypted: boolean): boolean {
    if (message.length > MAX_UNSOLICITED_MESSAGE_BYTES || ++this.unsolicitedMessages > MAX_UNSOLICITED_MESSAGES) {
      const why = message.length > MAX_UNSOLICITED_MESSAGE_BYTES ? `of ${message.length} bytes` : `number ${this.unsolicitedMessages}`;
      this.failProtocol(
        new SmbError(
          'protocol',
          `The server sent an unsolicited message ${why}; a break notification is smaller and rarer.`,
          'The server, or something on the path to it, is misbehaving.',
        ),
      );
      return false;
    }
    const security = this.security;
    if (security?.sealAll === true && !encrypted) return true;
    const signer = security?.signer;
    if (
      !encrypted &&
      signer &&
      security?.signAll === true &&
      this.sessionId !== 0n &&
      !(isSigned(message) && header.sessionId === this.sessionId && verifyMessage(signer, message))
    )
      return true;
    this.credits.onResponse(header.credits, 0);
    return true;
  }

  /**
   * A reply to a sealed request must come sealed; one to a signed request
   * (or any, once the session signs everything) must carry a signature that
   * verifies. Anything else fails the connection with an `integrity` error
   * before a byte of it is used. An interim STATUS_PENDING, which carries no
   * data, may come unsigned (MS-SMB2 3.2.5.1.3 skips those).
   *
   * The session a reply is verified against is its request's (MS-SMB2
   * 3.2.5.1.3: "For all other messages, the client MUST retrieve SessionId
   * from the corresponding Request.Message"); only a SESSION_SETUP reply
   * names its own. A reply whose header names another session, or none, is
   * verified all the same (its signature covers that header): a path that
   * zeroed the SessionId, the flag and the signature of every reply would
   * otherwise strip signing unseen.
   */
  private checkIntegrity(message: Buffer, header: Smb2Header, pending: Pending | undefined, encrypted: boolean, interim: boolean): boolean {
    if (encrypted) return true;
    const what = pending ? `the reply to ${pending.spec.what}` : `a reply (message ${header.messageId})`;
    if (pending?.sealed) {
      this.failProtocol(integrityError(`The server sent ${what} unencrypted, though the request was encrypted.`));
      return false;
    }
    const security = this.security;
    const signer = security?.signer;
    const sessionId = pending && pending.spec.command !== Command.sessionSetup ? pending.sessionId : header.sessionId;
    if (!signer || sessionId === 0n || sessionId !== this.sessionId) return true;

    if (isSigned(message)) {
      if (verifyMessage(signer, message)) return true;
      this.failProtocol(integrityError(`The signature of ${what} does not verify (${signer.algorithm}).`));
      return false;
    }
    if ((security.signAll || pending?.signed) && !interim) {
      this.failProtocol(integrityError(`The server sent ${what} unsigned, though the session signs every message.`));
      return false;
    }
    return true;
  }

  private settle(pending: Pending, error: unknown, response?: SmbResponse): void {
    if (pending.settled) return;
    pending.settled = true;
    if (pending.timer) clearTimeout(pending.timer);
    if (error !== undefined || !response) pending.reject(error);
    else pending.resolve(response);
  }

  private fail(error: SmbError): void {
    if (this.closedError) return;
    this.closedError = error;
    clearInterval(this.watchdog);
    this.writer.close();
    for (const pending of this.pending.values()) this.settle(pending, error);
    this.pending.clear();
    this.replyBytesOwed = 0;
    this.credits.failWaiters(error);
  }

  private throwIfClosed(): void {
    if (this.closedError) throw this.closedError;
  }

  /** Closes the socket; outstanding requests fail with `connection-lost`. */
  destroy(): void {
    this.fail(new SmbError('connection-lost', 'The connection was closed by Pipefill.', 'Open a new session.'));
    this.socket.destroy();
  }

  /** Ends the TCP connection politely after the caller has logged off. */
  async end(): Promise<void> {
    if (!this.isOpen) return;
    // Everything was answered (the caller logged off), so nothing is left to send.
    this.writer.close();
    await new Promise<void>((resolve) => {
      this.socket.end(() => resolve());
      setTimeout(resolve, 1_000).unref();
    });
    this.destroy();
  }
}
