// One TCP connection to an SMB2 server: numbers requests within the
// server's credit grant, sends them framed and protected
// (request-frames.ts), matches replies (interim STATUS_PENDING ones
// included) after their protection is checked (message-protection.ts),
// watches for a server gone silent (silence-watchdog.ts) and turns failures
// into typed errors.

import type { Socket } from 'node:net';
import { CreditWindow } from './credits.js';
import { takeMessageIds } from './credit-wait.js';
import { cancelledError, errorForStatus, SmbError, waitUnlessCancelled } from './errors.js';
import { FrameReader } from './framing.js';
import type { FrameWriter, WriterChoice } from './frame-writer.js';
import { openFrameWriter } from './frame-writer.js';
import { PROGRESS_BYTES, SILENCE_TIMEOUT_MS, SilenceWatchdog } from './silence-watchdog.js';
import { replyIntegrityError, unopenedError, unsolicitedTrusted } from './message-protection.js';
import type { Smb2Header } from './protocol.js';
import { HeaderFlag, SMB2_HEADER_BYTES, splitCompound, Status, transportHeader } from './protocol.js';
import { isTransformed } from './security/transform.js';
import type { ConnectionSecurity, PendingRequest, RequestOptions, RequestSpec, SmbResponse } from './request-frames.js';
import { DEFAULT_REPLY_BYTES, frameRequests } from './request-frames.js';
import type { ConnectOptions } from './smb-socket.js';
import { onSocketEnd, openSmbSocket } from './smb-socket.js';
import { kernelRoundTrip, type KernelRoundTrip } from './kernel-rtt.js';
import {
  decodeReply,
  MAX_UNSOLICITED_MESSAGE_BYTES,
  replyMismatch,
  tooManyInterims,
  unknownReply,
  UNSOLICITED_MESSAGE_ID,
  unsolicitedRefusal,
} from './reply-rules.js';

/** Room beyond the replies owed: a TRANSFORM header, compound padding, an unsolicited oplock break. */
const FRAME_SLACK_BYTES = 4096;
export class SmbConnection {
  private readonly pending = new Map<bigint, PendingRequest>();
  private closedError: SmbError | undefined;
  readonly credits = new CreditWindow();
  /** Negotiated dialect; before NEGOTIATE completes, charges are sent as 0 (MS-SMB2 3.2.4.1.5). */
  dialect = 0;
  sessionId = 0n;
  /** Credits Pipefill tries to hold (granted plus in flight); the transfer engine raises it to its pipeline's need. */
  creditTarget = 64;
  private readonly silence: SilenceWatchdog;
  /** A message of the frame being handled answered (or was an interim reply to) a request. */
  private frameAnswered = false;
  /** Whether any encrypted reply has come back on this connection: a server that never answers one is named for it (issue 50). */
  private encryptedAnswered = false;
  private unsolicitedMessages = 0;
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
    this.silence = new SilenceWatchdog(silenceTimeoutMs);
    this.writer = openFrameWriter(
      socket,
      (message) =>
        this.fail(new SmbError('connection-lost', `Sending to ${host}:${port} failed: ${message}.`, 'Check that the server is running and reachable.')),
      writer,
    );
    this.watchdog = setInterval(() => this.checkSilence(), this.silence.intervalMs);
    this.watchdog.unref();
    onSocketEnd(socket, `${host}:${port}`, (error) => this.fail(error));
  }

  /** How requests reach the socket: `native` (Pipefill's sender addon) or `socket` (Node's own). */
  get writerKind(): FrameWriter['kind'] {
    return this.writer.kind;
  }

  /**
   * Whether WRITE data may be given as a range of a local file or of the test pattern (the sender addon reads or makes
   * it as it sends). While every message is signed, only with AES-GMAC, which the addon computes over the range before
   * sending it; never while messages are sealed (the cipher's output is what goes out).
   */
  get sendsRanges(): boolean {
    const security = this.security;
    return this.writer.kind === 'native' && !security?.sealAll && (!security?.signAll || security.signer?.gmacFor !== undefined);
  }

  /**
   * The quickest request-to-answer time seen on this connection, ms: the path's round trip plus the server's least
   * work, so an upper bound of the RTT that tightens with every exchange (negotiate, session set-up and tree connect
   * already give one before any data moves). Undefined before the first answer.
   */
  get fastestExchangeMs(): number | undefined {
    return Number.isFinite(this.fastestMs) ? this.fastestMs : undefined;
  }

  /** The kernel's sample of this connection (Linux, with the sender addon), else undefined. */
  kernelSample(): KernelRoundTrip | undefined {
    return kernelRoundTrip(this.socket);
  }

  /** The TCP connection's own addresses, to find it in the kernel's socket table. */
  get endpoints(): { readonly localAddress: string; readonly localPort: number; readonly remoteAddress: string; readonly remotePort: number } {
    return {
      localAddress: this.socket.localAddress ?? '',
      localPort: this.socket.localPort ?? 0,
      remoteAddress: this.socket.remoteAddress ?? '',
      remotePort: this.socket.remotePort ?? 0,
    };
  }

  static async connect(
    host: string,
    port: number,
    options: ConnectOptions & { silenceTimeoutMs?: number; writer?: WriterChoice } = {},
  ): Promise<SmbConnection> {
    const reader = new FrameReader();
    let connection: SmbConnection | undefined;
    const socket = await openSmbSocket(host, port, reader, (bytes) => connection?.onBytes(bytes), options);
    try {
      connection = new SmbConnection(socket, reader, host, port, options.silenceTimeoutMs ?? SILENCE_TIMEOUT_MS, options.writer ?? 'auto');
    } catch (error) {
      socket.destroy();
      throw new SmbError(
        'protocol',
        `Pipefill cannot send on this connection: ${error instanceof Error ? error.message : String(error)}.`,
        'Use the plain Node sender (PIPEFILL_NATIVE_SEND=0).',
        undefined,
        { cause: error },
      );
    }
    return connection;
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
    const askedAt = performance.now();
    const ids = await takeMessageIds(this.credits, specs, options);
    this.throwIfClosed();

    const { frames, nativeSign, messages, sealed } = frameRequests(specs, ids, {
      dialect: this.dialect,
      sessionId: this.sessionId,
      creditRequest: (charge) => this.creditRequest(charge),
      security: this.security,
      nativeWriter: this.writer.kind === 'native',
    });
    let head: PendingRequest | undefined;
    const results = messages.map(({ messageId, charge, spec, signed, messageBytes }) => {
      return new Promise<SmbResponse>((resolve, reject) => {
        const replyBytes = spec.replyBytes ?? DEFAULT_REPLY_BYTES;
        const pending: PendingRequest = {
          charge,
          spec,
          sealed,
          signed,
          replyBytes,
          sentBytes: messageBytes,
          sessionId: this.sessionId,
          sentAt: performance.now(),
          interims: 0,
          settled: false,
          ...(head ? { head } : {}),
          resolve,
          reject,
        };
        head ??= pending;
        if (this.pending.size === 0) this.silence.progress(); // silence counts from the first request out
        this.pending.set(messageId, pending);
        this.owe(replyBytes);
        const timeoutMs = options.timeoutMs;
        if (timeoutMs !== undefined) {
          // A caller's own deadline (clean-up paths that must end promptly), counted from the ask: the credit wait is in it.
          pending.timer = setTimeout(
            () => {
              this.settle(pending, new SmbError('timeout', `The server did not answer ${spec.what} within ${timeoutMs / 1000} s.`, this.silenceHint(sealed)));
            },
            Math.max(1, timeoutMs - (performance.now() - askedAt)),
          );
        }
      });
    });

    const total = frames.reduce((sum, frame) => sum + frame.length, 0);
    this.silence.sent(total);
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

    // A cancelled caller stops waiting; the requests stay pending so their
    // replies still return credits and nothing is miscounted.
    return waitUnlessCancelled(Promise.all(results), options.signal);
  }

  /** Asks for enough credits to keep `creditTarget` granted or in flight, and at least this request's charge back. */
  private creditRequest(charge: number): number {
    const held = this.credits.credits + this.credits.creditsInFlight;
    return Math.max(charge, Math.min(8192, charge + Math.max(0, this.creditTarget - held)));
  }

  /**
   * What to do about a request that got no answer. Sealed requests on a connection where no encrypted reply ever came
   * are the server's handling of encryption, not its load: "overloaded, try again" sent a person round in circles on a
   * server that never answered one (issue 50).
   */
  private silenceHint(sealed: boolean, otherwise = 'The server or the path to it may be overloaded; try again.'): string {
    if (!sealed || this.encryptedAnswered) return otherwise;
    return 'The server has answered no encrypted request on this connection: it negotiated SMB 3 encryption but does not handle it. Test without encryption (--no-encrypt, where the share allows it), or fix the server (its SMB 3 encryption settings or firmware).';
  }

  private checkSilence(): void {
    const overdue = this.pending.size === 0 ? undefined : this.silence.overdue();
    if (!overdue) return;
    const trickled = overdue.trickledBytes > 0 ? ` (only ${overdue.trickledBytes} bytes, and no answer)` : '';
    const sealed = [...this.pending.values()].some((pending) => pending.sealed);
    this.fail(
      new SmbError(
        'timeout',
        `The server ${this.host}:${this.port} has made no progress for ${Math.round(overdue.silentMs / 100) / 10} s with requests outstanding${trickled}.`,
        this.silenceHint(sealed, 'The server or the path to it has stalled; check both and try again.'),
      ),
    );
    this.socket.destroy();
  }

  private owe(bytes: number): void {
    this.replyBytesOwed = Math.max(0, this.replyBytesOwed + bytes);
    this.reader.maxFrameBytes = this.replyBytesOwed + FRAME_SLACK_BYTES;
  }

  private onBytes(bytes: number): void {
    this.silence.received(bytes);
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
          this.failProtocol(unopenedError(`${this.host}:${this.port}`, error));
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
      if (encrypted) this.encryptedAnswered = true;
      for (const message of messages) {
        if (!this.onMessage(message, encrypted)) return;
      }
      if (!this.frameAnswered) this.silence.takeBack();
    }
    // Bytes of a frame still arriving count, but only of one too large to be an unsolicited message (those are refused
    // above that size): it can only be a reply. Taken back above if, once whole, it answered nothing.
    if (this.silence.bytesSinceProgress >= PROGRESS_BYTES && this.reader.partialFrameBytes() > MAX_UNSOLICITED_MESSAGE_BYTES) this.silence.partialProgress();
  }

  /** Fails the connection for a server that broke the protocol; false, to stop reading the frame. */
  private failProtocol(error: SmbError): false {
    this.fail(error);
    this.socket.destroy();
    return false;
  }

  /** Handles one received message; false when it failed the connection (stop reading the frame). */
  private onMessage(message: Buffer, encrypted: boolean): boolean {
    const header = decodeReply(message);
    if (header instanceof SmbError) return this.failProtocol(header);
    if (header.messageId === UNSOLICITED_MESSAGE_ID) return this.onUnsolicited(message, header, encrypted);
    const pending = this.pending.get(header.messageId);
    const interim = header.status === Status.pending && (header.flags & HeaderFlag.asyncCommand) !== 0;
    if (!this.checkIntegrity(message, header, pending, encrypted, interim)) return false;
    const mismatch = replyMismatch(header, pending?.spec);
    if (mismatch || !pending) return this.failProtocol(mismatch ?? unknownReply(header));
    if (interim) {
      const endless = tooManyInterims(++pending.interims, pending.spec.what);
      if (endless) return this.failProtocol(endless);
      // The server has the request and will answer later; its grant counts now.
      this.credits.onResponse(header.credits, 0);
      this.frameAnswered = true;
      return true;
    }
    this.credits.onResponse(header.credits, pending.charge);
    this.frameAnswered = true;
    this.pending.delete(header.messageId);
    this.owe(-pending.replyBytes);
    this.silence.delivered(pending.sentBytes + message.length);
    this.silence.progress();
    // A request taken async waited on the server, not the path: only direct answers time the round trip.
    if (pending.interims === 0) this.fastestMs = Math.min(this.fastestMs, performance.now() - pending.sentAt);
    const body = message.subarray(SMB2_HEADER_BYTES);
    pending.answeredStatus = header.status;
    // MS-SMB2 3.3.5.2.7.2: once a chain's first request failed, the related ones after it fail too, and only SHOULD
    // repeat its status (two servers answer STATUS_INVALID_HANDLE): their statuses then say nothing. The caller reads the head's.
    const headFailed = pending.head?.answeredStatus !== undefined && pending.head.answeredStatus !== Status.success;
    const ok = header.status === Status.success || pending.spec.okStatuses?.includes(header.status) === true || pending.spec.anyStatus === true || headFailed;
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
    const refused = unsolicitedRefusal(message.length, ++this.unsolicitedMessages);
    if (refused) return this.failProtocol(refused);
    if (unsolicitedTrusted(message, header, encrypted, this.security, this.sessionId)) this.credits.onResponse(header.credits, 0);
    return true;
  }

  /** A reply that fails its protection (src/smb/message-protection.ts) fails the connection before a byte of it is used. */
  private checkIntegrity(message: Buffer, header: Smb2Header, pending: PendingRequest | undefined, encrypted: boolean, interim: boolean): boolean {
    const error = replyIntegrityError(
      message,
      header,
      pending
        ? { what: pending.spec.what, command: pending.spec.command, sessionId: pending.sessionId, sealed: pending.sealed, signed: pending.signed }
        : undefined,
      { encrypted, interim },
      this.security,
      this.sessionId,
    );
    if (!error) return true;
    this.failProtocol(error);
    return false;
  }

  private settle(pending: PendingRequest, error: unknown, response?: SmbResponse): void {
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

  /** Closes the socket, failing what is outstanding; `reset`: by a TCP RST, where a FIN would wait behind bytes never to be acknowledged. */
  destroy(reset = false): void {
    this.fail(new SmbError('connection-lost', 'The connection was closed by Pipefill.', 'Open a new session.'));
    if (reset) this.socket.resetAndDestroy();
    else this.socket.destroy();
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
