// SMB's transport frames (MS-SMB2 2.1: Direct TCP, a zero byte and a 24-bit
// length before each message) in one direction of a reassembled TCP stream.
// Each frame is handed on with its length, the time its first and last bytes
// were seen, and its first bytes (enough for every header the analysis
// reads); the rest of a 1 MiB write is counted, not kept. Where a hole in
// the capture swallows a frame's length, the framing is lost until the
// captured bytes hold what a frame's start looks like again (frameStartIn).

import type { StreamConsumer } from './tcp-stream.js';

export interface SmbFrame {
  /** The message's length (without the 4-byte transport header). */
  readonly length: number;
  readonly firstSeconds: number;
  readonly lastSeconds: number;
  /** The message's first bytes as captured: at most KEPT_BYTES, fewer where the capture cut them. */
  readonly head: Buffer;
  /** Whether every byte of `head` up to its length was captured (false: a hole fell inside it). */
  readonly headComplete: boolean;
}

export interface FramerCounts {
  frames: number;
  /** Bytes the framing could not place in a frame (holes where a length was, and what followed until it found one). */
  unframedBytes: number;
  /** Times the framing was lost and found again. */
  resyncs: number;
}

/** Of each message, this much is kept: the 64-byte header, a compound's next headers, and a CREATE response's file id. */
export const KEPT_BYTES = 1024;
/** No SMB2 message is longer (an 8 MiB read or write with its header, sealed): a longer length is not a frame start. */
const MOST_FRAME_BYTES = (8 << 20) + 4096;
/** The protocol ids a message starts with: SMB2 (0xFE), a transform header (0xFD, sealed), a compression one (0xFC), and SMB1 (0xFF). */
const PROTOCOL_IDS = new Set([0xfe, 0xfd, 0xfc, 0xff]);

/** Whether `bytes` start with what a Direct TCP frame looks like. */
export function looksLikeFrameStart(bytes: Buffer): boolean {
  if (bytes.length < 8 || bytes[0] !== 0) return false;
  const length = bytes.readUIntBE(1, 3);
  return length >= 4 && length <= MOST_FRAME_BYTES && PROTOCOL_IDS.has(bytes[4] ?? 0) && bytes.toString('latin1', 5, 8) === 'SMB';
}

const SMB_LETTERS = Buffer.from('SMB', 'latin1');
/** What a lost framer carries from one chunk to the next: a frame's length, its protocol id and two letters. */
const CARRIED_BYTES = 7;
const SESSION_KEEP_ALIVE = 0x85;
/** Commands MS-SMB2 2.2.1 defines (NEGOTIATE 0x0000 to OPLOCK_BREAK 0x0012). */
const MOST_COMMAND = 0x12;
const TRANSFORM_HEADER_BYTES = 52;

/** Whether the frame at `start` holds an SMB2 header (64 bytes, a known command) or a transform header whose size fits. */
function headerHolds(bytes: Buffer, start: number): boolean {
  const message = start + 4;
  if (bytes[message] === 0xfe)
    return message + 16 <= bytes.length && bytes.readUInt16LE(message + 4) === 64 && bytes.readUInt16LE(message + 12) <= MOST_COMMAND;
  if (bytes[message] !== 0xfd || message + TRANSFORM_HEADER_BYTES > bytes.length) return false;
  // MS-SMB2 2.2.41: the sealed message fits the frame, and Flags (3.1.1) or EncryptionAlgorithm (3.0) is 1.
  const length = bytes.readUIntBE(start + 1, 3);
  return bytes.readUInt32LE(message + 36) <= length - TRANSFORM_HEADER_BYTES && bytes.readUInt16LE(message + 42) === 1;
}

/**
 * Where a Direct TCP frame carrying an SMB2 message starts in `bytes`, if
 * anywhere: its length, the protocol id, and a header that says what it is
 * (headerHolds). A segment offloaded on the sending host holds many
 * messages, so a frame whose start a missed packet took with it is found
 * again inside the next one. File data that happens to hold all of that (a
 * capture of a capture, copied) could fool it; nothing else does.
 */
export function frameStartIn(bytes: Buffer): number | undefined {
  // Each pass moves past the letters it looked at: bounded by the bytes.
  for (let from = 5; from < bytes.length;) {
    const letters = bytes.indexOf(SMB_LETTERS, from);
    if (letters < 0) return undefined;
    const start = letters - 5;
    if (looksLikeFrameStart(bytes.subarray(start)) && headerHolds(bytes, start)) return start;
    from = letters + 1;
  }
  return undefined;
}

export class SmbFramer implements StreamConsumer {
  readonly counts: FramerCounts = { frames: 0, unframedBytes: 0, resyncs: 0 };
  /** The 4-byte length being read, or the frame being read. */
  private lengthBytes: number[] = [];
  private frame: { length: number; read: number; head: Buffer[]; headBytes: number; complete: boolean; first: number } | undefined;
  private lost = false;
  /**
   * While lost, the last bytes handed in: a frame's start may straddle two chunks (go-smb2 sends each frame's
   * 4-byte length in a segment of its own), so the search for it looks across them.
   */
  private carried: Buffer = Buffer.alloc(0);
  private lengthStartedAt = 0;

  constructor(private readonly onFrame: (frame: SmbFrame) => void) {}

  /** When the frame now being read began (its first byte), or undefined between frames: nothing before it is still to come. */
  get startedAt(): number | undefined {
    if (this.frame) return this.frame.first;
    return this.lengthBytes.length > 0 ? this.lengthStartedAt : undefined;
  }

  /** Bytes of the stream, in order: framed where the framing holds, searched for the next frame where it was lost. */
  data(bytes: Buffer, seconds: number): void {
    // A loop, not a recursion: a crafted chunk may lose and find the framing many times over.
    for (let chunk: Buffer | undefined = bytes; chunk !== undefined && chunk.length > 0;) {
      if (this.lost) chunk = this.resync(chunk);
      if (chunk !== undefined) chunk = this.frameFrom(chunk, seconds);
    }
  }

  /** Reads frames from `bytes`; where the framing is lost, what follows the bad length, to search again. */
  private frameFrom(bytes: Buffer, seconds: number): Buffer | undefined {
    let at = 0;
    while (at < bytes.length) {
      if (!this.frame) {
        const byte = bytes[at] ?? 0;
        if (this.lengthBytes.length === 0) this.lengthStartedAt = seconds;
        this.lengthBytes.push(byte);
        at++;
        if (this.lengthBytes.length < 4) continue;
        const [zero = 0, b1 = 0, b2 = 0, b3 = 0] = this.lengthBytes;
        this.lengthBytes = [];
        const length = (b1 << 16) | (b2 << 8) | b3;
        // RFC 1002 4.3.7's session keep-alive (0x85, no data): nothing to frame.
        if (zero === SESSION_KEEP_ALIVE && length === 0) continue;
        if (zero !== 0 || length > MOST_FRAME_BYTES) {
          // Lost: found again in the rest of these bytes if a frame starts there, else in what comes next.
          this.loseFraming(4);
          return bytes.subarray(at);
        }
        this.frame = { length, read: 0, head: [], headBytes: 0, complete: true, first: this.lengthStartedAt };
        if (length === 0) this.endFrame(seconds);
        continue;
      }
      const take = Math.min(bytes.length - at, this.frame.length - this.frame.read);
      const keep = Math.min(take, KEPT_BYTES - this.frame.headBytes);
      if (keep > 0) {
        // Copied: the bytes handed in belong to a chunk the reader reuses.
        this.frame.head.push(Buffer.from(bytes.subarray(at, at + keep)));
        this.frame.headBytes += keep;
      }
      this.frame.read += take;
      at += take;
      if (this.frame.read === this.frame.length) this.endFrame(seconds);
    }
    return undefined;
  }

  /**
   * Lost: looks for a frame's start in what was carried and `bytes`, and gives the bytes from there; else carries
   * the last bytes on. Bytes once counted unframed and found to start a frame are taken off the count.
   */
  private resync(bytes: Buffer): Buffer | undefined {
    const carried = this.carried;
    const joined = carried.length > 0 ? Buffer.concat([carried, bytes]) : bytes;
    const found = frameStartIn(joined);
    if (found === undefined) {
      this.counts.unframedBytes += bytes.length;
      // Copied: the bytes handed in belong to a chunk the reader reuses.
      this.carried = Buffer.from(joined.subarray(Math.max(0, joined.length - CARRIED_BYTES)));
      return undefined;
    }
    this.counts.unframedBytes += found - carried.length;
    this.carried = Buffer.alloc(0);
    this.lost = false;
    this.counts.resyncs++;
    return joined.subarray(found);
  }

  hole(length: number, seconds: number): void {
    if (this.lost) {
      this.counts.unframedBytes += length;
      // Nothing carried meets what follows a hole.
      this.carried = Buffer.alloc(0);
      return;
    }
    let left = length;
    // A hole in the middle of a frame: the frame goes on by its length, and what its head lacks is marked.
    while (left > 0 && this.frame) {
      const take = Math.min(left, this.frame.length - this.frame.read);
      if (this.frame.headBytes < KEPT_BYTES && this.frame.headBytes < this.frame.length) this.frame.complete = false;
      this.frame.read += take;
      // Nothing after a hole is kept in the head: its bytes would stand at the wrong offsets.
      this.frame.headBytes = KEPT_BYTES;
      left -= take;
      if (this.frame.read === this.frame.length) this.endFrame(seconds);
      else return;
    }
    if (left > 0) this.loseFraming(left);
  }

  private loseFraming(bytes: number): void {
    this.lost = true;
    this.frame = undefined;
    this.lengthBytes = [];
    this.counts.unframedBytes += bytes;
  }

  private endFrame(seconds: number): void {
    const frame = this.frame;
    if (!frame) return;
    this.frame = undefined;
    this.counts.frames++;
    this.onFrame({
      length: frame.length,
      firstSeconds: frame.first,
      lastSeconds: seconds,
      head: frame.head.length === 1 ? (frame.head[0] ?? Buffer.alloc(0)) : Buffer.concat(frame.head),
      headComplete: frame.complete,
    });
  }
}
