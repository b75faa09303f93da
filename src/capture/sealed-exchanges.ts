// What an encrypted SMB 3 connection's client did, read from the sizes and
// order of its sealed messages alone (issue 53). A transform header (MS-SMB2
// 2.2.41) hides the command, the message id and the credits, but says how
// large the message inside is (OriginalMessageSize). A copy's data messages
// are the large ones, and their sizes give the requests': a WRITE request
// carries its data after a 112-byte header and body (2.2.21, DataOffset
// 0x70), a READ response after 80 (2.2.20, DataOffset 0x50), and a READ
// request is 113 bytes (2.2.19: StructureSize 49, one byte of buffer).
// Without message ids a response is paired with the oldest request still
// waiting, as a server that answers in the order it was asked does (smbd and
// Windows for one file's reads and writes), and an error-sized answer to a
// read or write is taken as the interim STATUS_PENDING it is there (smbd sends
// them for reads and writes alike); a copy ends where the client, its data
// answered, asks something else (its CLOSE) or turns to the other direction.
// Memory is bounded: the requests waiting (MOST_PENDING) and the copies
// (MOST_COPIES).

import type { FileCopySeen } from './file-copy-seen.js';
import type { SmbMessage } from './smb-messages.js';

/** What comes before a WRITE request's data (2.2.21) and a READ response's (2.2.20): SMB2 header and body. */
const WRITE_REQUEST_DATA_OFFSET = 0x70;
const READ_RESPONSE_DATA_OFFSET = 0x50;
/** A READ request (2.2.19), alone or padded to 8 bytes in a compound. */
const READ_REQUEST_BYTES = [113, 120];
/** A message larger than this beyond its header carries a copy's data; below it, a request or answer about one. */
const DATA_LEAST_BYTES = 4096;
/** An error response (2.2.2: header, 8 bytes, one of data): an interim STATUS_PENDING, which answers nothing yet. */
const ERROR_RESPONSE_BYTES = 64 + 9;
const MOST_PENDING = 65_536;
const MOST_COPIES = 100_000;

interface SealedRequest {
  readonly firstSeconds: number;
  readonly bytes: number;
  /** What its size says it asks: a write (with its data), a read, or something else. */
  readonly asks: 'write' | 'read' | 'other';
}

interface SealedCopy {
  readonly op: 'read' | 'write';
  bytes: number;
  requests: number;
  readonly sizes: Map<number, number>;
  largest: number;
  readonly first: number;
  last: number;
  /** Each request's time out (from its first byte to its answer's last), summed: the in-flight count's integral. */
  area: number;
  byteArea: number;
  maxInFlight: number;
}

const asksOf = (bytes: number): SealedRequest['asks'] => (dataOfRequest(bytes) > 0 ? 'write' : READ_REQUEST_BYTES.includes(bytes) ? 'read' : 'other');
const dataOfRequest = (bytes: number) => (bytes - WRITE_REQUEST_DATA_OFFSET > DATA_LEAST_BYTES ? bytes - WRITE_REQUEST_DATA_OFFSET : 0);
const dataOfResponse = (bytes: number) => (bytes - READ_RESPONSE_DATA_OFFSET > DATA_LEAST_BYTES ? bytes - READ_RESPONSE_DATA_OFFSET : 0);

export class SealedExchanges {
  /**
   * Requests waiting, oldest first from `head`: taken from the front by moving `head`, not by shift(), which
   * copies an array this long (it lives in V8's large-object space) on every answer.
   */
  private pending: SealedRequest[] = [];
  private head = 0;
  /** Of those waiting, the writes and the reads. */
  private readonly waiting = { write: 0, read: 0, other: 0 };
  private current: SealedCopy | undefined;
  private readonly done: SealedCopy[] = [];
  private notFollowed = 0;

  /** One sealed message, in capture order. */
  message(message: SmbMessage): void {
    const bytes = message.sealed?.originalBytes;
    if (bytes === undefined) return;
    if (message.direction === 'request') {
      if (this.pending.length - this.head >= MOST_PENDING) return;
      const asks = asksOf(bytes);
      this.pending.push({ firstSeconds: message.firstSeconds, bytes, asks });
      this.waiting[asks]++;
      return;
    }
    const oldest = this.pending[this.head];
    // An interim answer leaves a read or write waiting for its final one (MS-SMB2 3.3.4.2).
    if (!oldest || (bytes <= ERROR_RESPONSE_BYTES && oldest.asks !== 'other')) return;
    this.head++;
    // Compacted once most of the array is behind the head: each request is moved at most once more on average.
    if (this.head > 1024 && this.head * 2 > this.pending.length) {
      this.pending = this.pending.slice(this.head);
      this.head = 0;
    }
    this.waiting[oldest.asks]--;
    this.answered(oldest, bytes, message);
  }

  private answered(request: SealedRequest, responseBytes: number, response: SmbMessage): void {
    const written = dataOfRequest(request.bytes);
    const read = dataOfResponse(responseBytes);
    const op = written > 0 ? 'write' : read > 0 ? 'read' : undefined;
    const current = this.current;
    if (op === undefined) {
      // Asked after its data was all answered: the copy is over (its CLOSE, the next file's open).
      if (current && request.firstSeconds >= current.last) this.finish();
      return;
    }
    if (current?.op !== op) this.finish();
    const copy = (this.current ??= {
      op,
      bytes: 0,
      requests: 0,
      sizes: new Map(),
      largest: 0,
      first: request.firstSeconds,
      last: response.lastSeconds,
      area: 0,
      byteArea: 0,
      maxInFlight: 0,
    });
    const size = Math.max(written, read);
    const out = Math.max(0, response.lastSeconds - request.firstSeconds);
    copy.bytes += size;
    copy.requests++;
    copy.sizes.set(size, (copy.sizes.get(size) ?? 0) + 1);
    copy.largest = Math.max(copy.largest, size);
    copy.last = Math.max(copy.last, response.lastSeconds);
    copy.area += out;
    copy.byteArea += out * size;
    // Out just before this answer: it and those of its kind still waiting.
    copy.maxInFlight = Math.max(copy.maxInFlight, this.waiting[op] + 1);
  }

  private finish(): void {
    if (this.current) {
      if (this.done.length < MOST_COPIES) this.done.push(this.current);
      else this.notFollowed++;
    }
    this.current = undefined;
  }

  /** The copies seen, as an unsealed connection's are reported; what encryption hides is left out or false. */
  result(): { readonly copies: FileCopySeen[]; readonly unanswered: number; readonly notFollowed: number } {
    this.finish();
    const copies = this.done
      .filter((copy) => copy.last > copy.first)
      .map((copy): FileCopySeen => {
        const span = copy.last - copy.first;
        let requestBytes = 0;
        let most = -1;
        for (const [size, count] of copy.sizes) if (size * count > most) [requestBytes, most] = [size, size * count];
        return {
          op: copy.op,
          bytes: copy.bytes,
          requests: copy.requests,
          requestBytes,
          largestRequestBytes: copy.largest,
          firstSeconds: copy.first,
          lastSeconds: copy.last,
          meanInFlight: copy.area / span,
          maxInFlight: Math.max(1, copy.maxInFlight),
          meanBytesInFlight: copy.byteArea / span,
          // One at a time, the time none was out is what their time out leaves; several at a time, it is hidden.
          ...(copy.maxInFlight <= 1 ? { idleFraction: Math.min(1, Math.max(0, 1 - copy.area / span)) } : {}),
          metadataRoundTrips: 0,
          opened: false,
          closed: false,
          unanswered: 0,
          sealed: true,
        };
      });
    return { copies, unanswered: this.pending.length - this.head, notFollowed: this.notFollowed };
  }
}
