import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../model/workloads.js';
import { FrameError, FrameReader } from './framing.js';

const frame = (body: Buffer) => {
  const header = Buffer.alloc(4);
  header.writeUInt32BE(body.length);
  return Buffer.concat([header, body]);
};

describe('FrameReader', () => {
  it('returns every message intact however the stream is cut', () => {
    const random = seededRandom(42);
    const sizes = [68, 3_000, 200_000, 64, 8 * 1024 * 1024 + 80, 100, 131_073, 70_000];
    const bodies = sizes.map((size) => randomBytes(size));
    const stream = Buffer.concat(bodies.map(frame));
    for (let trial = 0; trial < 5; trial++) {
      const reader = new FrameReader();
      const received: Buffer[] = [];
      let offset = 0;
      while (offset < stream.length) {
        const n = Math.max(1, Math.floor(random() * 300_000));
        received.push(...reader.push(stream.subarray(offset, offset + n)));
        offset += n;
      }
      expect(received.map((b) => b.length)).toEqual(sizes);
      received.forEach((body, i) => expect(body.equals(bodies[i] ?? Buffer.alloc(0))).toBe(true));
    }
  });

  it('reads a large message straight into its own buffer', () => {
    const reader = new FrameReader();
    const body = randomBytes(1024 * 1024);
    const whole = frame(body);
    reader.push(whole.subarray(0, 1000));
    const target = reader.nextBuffer();
    expect(target.length).toBe(body.length - 996); // the rest of the message, nothing more
    whole.copy(target, 0, 1000);
    const [message] = reader.onRead(target.length);
    expect(message?.equals(body)).toBe(true);
  });

  it('refuses a frame that is not Direct TCP', () => {
    expect(() => new FrameReader().push(Buffer.from('HTTP/1.1 400 Bad Request\r\n'))).toThrow(FrameError);
  });
});
