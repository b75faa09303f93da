import { describe, expect, it } from 'vitest';
import { Command } from '../smb/protocol.js';
import { smb2 } from '../test-support/smb-conversation.js';
import type { SmbFrame } from './smb-frames.js';
import { SmbFramer } from './smb-frames.js';

/** An ECHO request (MS-SMB2 2.2.28) in its Direct TCP frame. */
function framedEcho(): Buffer {
  const message = smb2({ command: Command.echo, messageId: 1n }, Buffer.from([4, 0, 0, 0]));
  const length = Buffer.alloc(4);
  length.writeUInt32BE(message.length, 0);
  return Buffer.concat([length, message]);
}

describe('SmbFramer', () => {
  it('finds the framing again after every bad length in one chunk, however many, without running out of stack', () => {
    // Twenty thousand frames, each followed by a length no SMB message has: found and lost again 20,000 times in one call.
    const bad = Buffer.from([0x01, 0x00, 0x00, 0x00]);
    const frame = framedEcho();
    const chunk = Buffer.concat(Array.from({ length: 20_000 }, () => Buffer.concat([frame, bad])));
    const frames: SmbFrame[] = [];
    const framer = new SmbFramer((each) => frames.push(each));
    framer.data(chunk, 1);
    expect(frames).toHaveLength(20_000);
    expect(framer.counts).toEqual({ frames: 20_000, unframedBytes: 20_000 * bad.length, resyncs: 19_999 });
  });

  it('finds a frame whose 4-byte length came in the chunk before its message, once lost', () => {
    const frames: SmbFrame[] = [];
    const framer = new SmbFramer((each) => frames.push(each));
    const frame = framedEcho();
    framer.data(Buffer.from([0x01, 0x00, 0x00, 0x00]), 1);
    framer.data(frame.subarray(0, 4), 2);
    framer.data(frame.subarray(4), 3);
    expect(frames.map((each) => each.length)).toEqual([frame.length - 4]);
    expect(framer.counts).toMatchObject({ unframedBytes: 4, resyncs: 1 });
  });
});
