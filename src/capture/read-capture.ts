// A capture file, read through once in fixed-size chunks (constant memory
// whatever its size): its packets' TCP segments followed into connections,
// and those that carry SMB into what their clients did. The file is opened
// without following a link planted where it was named, read only, and
// nothing of it is kept beyond the bounded state the followers hold.

import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import { CaptureFormatError, CaptureParser } from './capture-format.js';
import type { ConnectionSeen } from './connections.js';
import { ConnectionTracker } from './connections.js';
import { tcpSegmentOf } from './tcp-packet.js';

export interface CaptureRead {
  readonly fileBytes: number;
  readonly packets: number;
  /** Packets that were not TCP over IP (ARP, UDP, fragments, other link types). */
  readonly otherPackets: number;
  /** From the first packet to the last (s). */
  readonly spanSeconds: number;
  readonly connections: readonly ConnectionSeen[];
  /** TCP connections that carried no SMB, and SMB ones past the number followed. */
  readonly otherConnections: number;
  readonly connectionsNotFollowed: number;
}

const CHUNK_BYTES = 1 << 20;

/** Follows every packet of a capture held in memory (tests, and the fuzz suite) or pushed in chunks. */
export class CaptureReader {
  private readonly tracker = new ConnectionTracker();
  private readonly parser: CaptureParser;
  private other = 0;
  private last = 0;
  private bytes = 0;

  constructor() {
    this.parser = new CaptureParser((packet) => {
      this.last = Math.max(this.last, packet.seconds);
      const segment = tcpSegmentOf(packet);
      if (segment) this.tracker.segment(segment);
      else this.other++;
    });
  }

  push(chunk: Buffer): void {
    this.bytes += chunk.length;
    this.parser.push(chunk);
  }

  finish(): CaptureRead {
    this.parser.end();
    const { connections, notFollowed, otherConnections } = this.tracker.finish();
    return {
      fileBytes: this.bytes,
      packets: this.parser.packets,
      otherPackets: this.other,
      spanSeconds: this.last,
      connections,
      otherConnections,
      connectionsNotFollowed: notFollowed,
    };
  }
}

/** Reads a capture file from disk. `signal` stops it between chunks. */
export async function readCaptureFile(path: string, signal?: AbortSignal): Promise<CaptureRead> {
  let handle;
  try {
    // O_NOFOLLOW: a link planted at the path is refused, not followed.
    handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOENT' ? 'there is no such file' : code === 'ELOOP' ? 'it is a symbolic link' : code === 'EACCES' ? 'it cannot be read' : String(code);
    throw new CaptureFormatError(`The capture could not be opened: ${why}.`, 'Give the path of a pcap or pcapng file you can read.');
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) throw new CaptureFormatError('The capture is not a regular file.', 'Give the path of a pcap or pcapng file.');
    const reader = new CaptureReader();
    const chunk = Buffer.alloc(CHUNK_BYTES);
    for (;;) {
      signal?.throwIfAborted();
      const { bytesRead } = await handle.read(chunk, 0, CHUNK_BYTES, null);
      if (bytesRead === 0) break;
      // The parser keeps only a record's unread start, copied: the chunk can be reused.
      reader.push(chunk.subarray(0, bytesRead));
    }
    return reader.finish();
  } finally {
    await handle.close();
  }
}
