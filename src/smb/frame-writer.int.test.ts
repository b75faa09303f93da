// The sender addon (native/sender) against a plain TCP server on loopback:
// bytes arrive whole and in order (buffers, file ranges, pattern ranges, all
// mixed, through a full socket), a message it signs with AES-GMAC carries
// the JavaScript signer's signature, and failure and close behave. Built by npm test on Linux; where it
// is not, these tests say so and the socket writer is checked instead.

import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import type { Server, Socket } from 'node:net';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { FramePart, FrameWriter } from './frame-writer.js';
import { openFrameWriter, senderAddon } from './frame-writer.js';
import { PatternSource } from '../copy/pattern.js';
import { createSigner, prepareToSign, SIGNATURE_OFFSET } from './security/signing.js';

interface Peer {
  readonly client: Socket;
  readonly server: Socket;
}

const sha = (data: Buffer) => createHash('sha256').update(data).digest('hex');

let listener: Server;
let accepted: ((socket: Socket) => void) | undefined;
const directory = mkdtempSync(join(tmpdir(), 'pipefill-sender-test-'));
const sourcePath = join(directory, 'source.bin');
// Larger than the loopback send and receive buffers together, so the thread must wait for room.
const source = randomBytes(24 * 2 ** 20);
const opened: { writer: FrameWriter; peer: Peer }[] = [];

beforeAll(async () => {
  writeFileSync(sourcePath, source);
  listener = createServer((socket) => accepted?.(socket));
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
});

afterEach(() => {
  for (const { writer, peer } of opened.splice(0)) {
    writer.close();
    peer.client.destroy();
    peer.server.destroy();
  }
});

afterAll(async () => {
  await new Promise((resolve) => listener.close(resolve));
  rmSync(directory, { recursive: true, force: true });
});

async function connectPair(): Promise<Peer> {
  const address = listener.address();
  if (address === null || typeof address === 'string') throw new Error('no listening address');
  const server = new Promise<Socket>((resolve) => (accepted = resolve));
  const client = connect(address.port, '127.0.0.1');
  await new Promise<void>((resolve, reject) => client.once('connect', resolve).once('error', reject));
  return { client, server: await server };
}

/** Reads from the server side until `bytes` have arrived, after an optional pause that lets the client's socket fill. */
function receive(socket: Socket, bytes: number, pauseMs = 0): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let got = 0;
  socket.pause();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`received ${got} of ${bytes} bytes in 10 s`)), 10_000);
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      got += chunk.length;
      if (got >= bytes) {
        clearTimeout(timer);
        resolve(Buffer.concat(chunks));
      }
    });
    setTimeout(() => socket.resume(), pauseMs);
  });
}

const available = senderAddon();

describe.runIf(available.available)('the sender addon', () => {
  async function nativePair(onError: (message: string) => void = () => undefined) {
    const peer = await connectPair();
    const writer = openFrameWriter(peer.client, onError, 'native');
    opened.push({ writer, peer });
    return { peer, writer };
  }

  it('sends buffers and file ranges whole and in order, through a full socket', async () => {
    const { peer, writer } = await nativePair();
    const handle = await open(sourcePath, 'r');
    const header = Buffer.from('header-1');
    const frames: FramePart[][] = [
      [header, { fd: handle.fd, offset: 0, length: 8 * 2 ** 20 }],
      [Buffer.from('small request'), Buffer.alloc(0), Buffer.from('!')],
      [Buffer.from('header-2'), { fd: handle.fd, offset: 8 * 2 ** 20, length: source.length - 8 * 2 ** 20 }, Buffer.from('trailer')],
      [Buffer.from('last')],
    ];
    const expected = Buffer.concat([
      header,
      source.subarray(0, 8 * 2 ** 20),
      Buffer.from('small request!'),
      Buffer.from('header-2'),
      source.subarray(8 * 2 ** 20),
      Buffer.from('trailer'),
      Buffer.from('last'),
    ]);
    const arriving = receive(peer.server, expected.length, 300);
    for (const frame of frames) writer.write(frame);
    // The sender holds its own descriptor: closing the file now must not change what is sent.
    await handle.close();
    const received = await arriving;
    expect(received.length).toBe(expected.length);
    expect(sha(received)).toBe(sha(expected));
  });

  it('sends pattern ranges as the bytes PatternSource makes, from any offset, beside buffers and file ranges', async () => {
    const { peer, writer } = await nativePair();
    const pattern = new PatternSource('sender-test', 'file.bin');
    const handle = await open(sourcePath, 'r');
    // Offsets inside an AES block and slices that end mid-block; one range
    // longer than the socket buffers, so the thread makes slices while it waits.
    const ranges = [
      { offset: 0, length: 5 },
      { offset: 7, length: 16 },
      { offset: 512 * 1024 - 3, length: 512 * 1024 + 9 },
      { offset: 2 ** 33 + 11, length: 20 * 2 ** 20 + 1 },
    ];
    const frames: FramePart[][] = ranges.map(({ offset, length }, index) => [Buffer.from(`header-${index}`), pattern.range(offset, length)]);
    frames.push([Buffer.from('file'), { fd: handle.fd, offset: 100, length: 1000 }, Buffer.from('end')]);
    const expected = Buffer.concat([
      ...ranges.flatMap(({ offset, length }, index) => [Buffer.from(`header-${index}`), pattern.bytes(offset, length)]),
      Buffer.from('file'),
      source.subarray(100, 1100),
      Buffer.from('end'),
    ]);
    const arriving = receive(peer.server, expected.length, 300);
    for (const frame of frames) writer.write(frame);
    const received = await arriving;
    await handle.close();
    expect(received.length).toBe(expected.length);
    expect(sha(received)).toBe(sha(expected));
  });

  it('refuses a pattern range with a wrong key or a broken offset, and sends nothing of its frame', async () => {
    const { peer, writer } = await nativePair();
    const key = Buffer.alloc(16, 1);
    expect(() => writer.write([Buffer.from('h'), { patternKey: Buffer.alloc(15), offset: 0, length: 10 }])).toThrow(/16-byte key/);
    expect(() => writer.write([Buffer.from('h'), { patternKey: key, offset: -1, length: 10 }])).toThrow(/whole offset/);
    expect(() => writer.write([Buffer.from('h'), { patternKey: key, offset: 0.5, length: 10 }])).toThrow(/whole offset/);
    expect(() => writer.write([Buffer.from('h'), { patternKey: key, offset: 0, length: Number.NaN }])).toThrow(/whole offset/);
    const arriving = receive(peer.server, 2);
    writer.write([Buffer.from('ok')]);
    expect((await arriving).toString()).toBe('ok');
  });

  it('signs a message with AES-GMAC over its header, body and data as the JavaScript signer does, from a file, the pattern or buffers', async () => {
    const { peer, writer } = await nativePair();
    const signer = createSigner('AES-128-GMAC', randomBytes(16));
    const pattern = new PatternSource('sender-test', 'signed.bin');
    const handle = await open(sourcePath, 'r');
    // A data range longer than the socket buffers, so signing and sending both run in many slices.
    const messages: { data: FramePart; bytes: Buffer }[] = [
      { data: { fd: handle.fd, offset: 12_345, length: 20 * 2 ** 20 + 7 }, bytes: source.subarray(12_345, 12_345 + 20 * 2 ** 20 + 7) },
      { data: pattern.range(2 ** 32 + 5, 3 * 2 ** 20), bytes: pattern.bytes(2 ** 32 + 5, 3 * 2 ** 20) },
      { data: Buffer.from('in memory'), bytes: Buffer.from('in memory') },
    ];
    const frames = messages.map(({ data }, index) => {
      const header = randomBytes(64);
      header.writeBigUInt64LE(BigInt(1000 + index), 24); // MessageId: each message its own nonce
      header.writeUInt32LE(0, 16); // a request
      prepareToSign(header);
      const body = randomBytes(48);
      return { header, body, parts: [Buffer.from([0, 0, 0, index]), header, body, data] as FramePart[] };
    });
    const expected = Buffer.concat(
      frames.flatMap(({ header, body, parts }, index) => {
        const bytes = messages[index]?.bytes ?? Buffer.alloc(0);
        const signed = Buffer.from(header);
        signer.signature([signed, body, bytes]).copy(signed, SIGNATURE_OFFSET);
        return [parts[0] as Buffer, signed, body, bytes];
      }),
    );
    const arriving = receive(peer.server, expected.length, 300);
    for (const { header, parts } of frames)
      writer.write(parts, { ...(signer.gmacFor?.(header) ?? { gmacKey: Buffer.alloc(0), nonce: Buffer.alloc(0) }), header: 1 });
    const received = await arriving;
    await handle.close();
    expect(received.length).toBe(expected.length);
    expect(received.subarray(4 + SIGNATURE_OFFSET, 4 + SIGNATURE_OFFSET + 16).equals(Buffer.alloc(16))).toBe(false);
    expect(sha(received)).toBe(sha(expected));
    // The thread signs its own copy of the header: the caller's keeps its zeroed field.
    for (const { header } of frames) expect(header.subarray(SIGNATURE_OFFSET, SIGNATURE_OFFSET + 16).equals(Buffer.alloc(16))).toBe(true);
  });

  it('refuses a signature with a wrong key, nonce or header, and sends nothing of its frame', async () => {
    const { peer, writer } = await nativePair();
    const header = Buffer.alloc(64);
    const parts: FramePart[] = [Buffer.alloc(4), header, Buffer.from('data')];
    const good = { gmacKey: Buffer.alloc(16, 7), nonce: Buffer.alloc(12, 1), header: 1 };
    expect(() => writer.write(parts, { ...good, gmacKey: Buffer.alloc(15) })).toThrow(/16-byte GMAC key/);
    expect(() => writer.write(parts, { ...good, nonce: Buffer.alloc(16) })).toThrow(/12-byte nonce/);
    expect(() => writer.write(parts, { ...good, header: 3 })).toThrow(/index of one of the parts/);
    expect(() => writer.write(parts, { ...good, header: 0.5 })).toThrow(/index of one of the parts/);
    expect(() => writer.write(parts, { ...good, header: 2 })).toThrow(/64-byte buffer/);
    const arriving = receive(peer.server, 2);
    writer.write([Buffer.from('ok')]);
    expect((await arriving).toString()).toBe('ok');
  });

  it('reports a file range beyond the end of its file as a failure of the connection', async () => {
    const errors: string[] = [];
    const { writer } = await nativePair((message) => errors.push(message));
    const handle = await open(sourcePath, 'r');
    writer.write([Buffer.from('h'), { fd: handle.fd, offset: source.length - 10, length: 100 }]);
    await handle.close();
    await expect.poll(() => errors.length, { timeout: 5_000 }).toBe(1);
    expect(errors[0]).toMatch(/EIO/);
  });

  it('reports a reset peer, and refuses further writes', async () => {
    const errors: string[] = [];
    const { peer, writer } = await nativePair((message) => errors.push(message));
    peer.server.resetAndDestroy();
    const handle = await open(sourcePath, 'r');
    // Enough to outlast the socket buffer: the send must fail, not block.
    const attempt = () => writer.write([Buffer.from('h'), { fd: handle.fd, offset: 0, length: source.length }]);
    await expect
      .poll(
        () => {
          try {
            attempt();
          } catch {
            return 'refused';
          }
          return errors.length > 0 ? 'reported' : 'pending';
        },
        { timeout: 5_000, interval: 100 },
      )
      .not.toBe('pending');
    await expect.poll(() => errors.length, { timeout: 5_000 }).toBeGreaterThan(0);
    expect(errors.join(' ')).toMatch(/ECONNRESET|EPIPE/);
    expect(() => attempt()).toThrow(/failed/);
    await handle.close();
  });

  it('closes at once while a send waits for a peer that does not read', async () => {
    const { peer, writer } = await nativePair();
    peer.server.pause();
    const handle = await open(sourcePath, 'r');
    writer.write([Buffer.from('h'), { fd: handle.fd, offset: 0, length: source.length }]);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const started = performance.now();
    writer.close();
    expect(performance.now() - started).toBeLessThan(500);
    writer.close(); // twice is harmless
    expect(() => writer.write([Buffer.from('late')])).toThrow(/closed/);
    await handle.close();
  });
});

describe('the socket writer', () => {
  it(available.available ? 'is used when asked for' : `is used (the sender addon is not here: ${available.available ? '' : available.reason})`, async () => {
    const peer = await connectPair();
    const writer = openFrameWriter(peer.client, () => undefined, 'socket');
    opened.push({ writer, peer });
    expect(writer.kind).toBe('socket');
    const arriving = receive(peer.server, 11);
    writer.write([Buffer.from('hello '), Buffer.from('world')]);
    expect((await arriving).toString()).toBe('hello world');
    // Refused whole: not even the buffer before the range reaches the wire.
    expect(() => writer.write([Buffer.from('half'), { fd: 0, offset: 0, length: 1 }])).toThrow(/buffers only/);
    expect(() => writer.write([Buffer.from('half'), { patternKey: Buffer.alloc(16), offset: 0, length: 1 }])).toThrow(/buffers only/);
    const next = receive(peer.server, 4);
    writer.write([Buffer.from('next')]);
    expect((await next).toString()).toBe('next');
  });

  it('is what auto gives when PIPEFILL_NATIVE_SEND=0', async () => {
    const peer = await connectPair();
    const saved = process.env['PIPEFILL_NATIVE_SEND'];
    process.env['PIPEFILL_NATIVE_SEND'] = '0';
    try {
      const writer = openFrameWriter(peer.client, () => undefined);
      opened.push({ writer, peer });
      expect(writer.kind).toBe('socket');
    } finally {
      if (saved === undefined) delete process.env['PIPEFILL_NATIVE_SEND'];
      else process.env['PIPEFILL_NATIVE_SEND'] = saved;
    }
  });
});
