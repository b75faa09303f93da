// Sealing and opening against Microsoft's SMB 3.0 (AES-128-CCM) and 3.1.1
// (AES-128-GCM) encryption examples, and the ways a frame must fail to open.

import { describe, expect, it } from 'vitest';
import { ENCRYPTION_30, ENCRYPTION_311, hex } from '../../test-support/smb-vectors.js';
import type { CipherName } from './algorithms.js';
import { deriveSessionKeys } from './kdf.js';
import { cryptoAddon } from '../native-crypto.js';
import { isTransformed, Sealer, TransformError } from './transform.js';

describe('TRANSFORM_HEADER sealing (MS-SMB2 3.1.4.3)', () => {
  it('3.0 / AES-128-CCM: seals the example WRITE byte for byte and opens the example response', () => {
    const keys = deriveSessionKeys('3.0', hex(ENCRYPTION_30.sessionKey));
    const sealer = new Sealer('AES-128-CCM', keys.encryptionKey, keys.decryptionKey, ENCRYPTION_30.sessionId);
    const sealed = Buffer.concat(sealer.seal([hex(ENCRYPTION_30.plain)], hex(ENCRYPTION_30.nonceField)));
    expect(sealed.toString('hex')).toBe(ENCRYPTION_30.sealed.toLowerCase());
    // The client cannot open its own request (other key), but the server's response, yes.
    const response = hex(ENCRYPTION_30.response);
    expect(isTransformed(response)).toBe(true);
    expect(sealer.open(response).toString('hex')).toBe(ENCRYPTION_30.responsePlain.toLowerCase());
  });

  it('3.1.1 / AES-128-GCM: keys from the preauth hash, the example WRITE sealed exactly, the response opened', () => {
    const keys = deriveSessionKeys('3.1.1', hex(ENCRYPTION_311.sessionKey), { preauthHash: hex(ENCRYPTION_311.preauthHash), cipher: 'AES-128-GCM' });
    expect(keys.encryptionKey.toString('hex')).toBe(ENCRYPTION_311.encryptionKey.toLowerCase());
    expect(keys.decryptionKey.toString('hex')).toBe(ENCRYPTION_311.decryptionKey.toLowerCase());
    const sealer = new Sealer('AES-128-GCM', keys.encryptionKey, keys.decryptionKey, ENCRYPTION_311.sessionId);
    const sealed = Buffer.concat(sealer.seal([hex(ENCRYPTION_311.plain)], hex(ENCRYPTION_311.nonceField)));
    expect(sealed.toString('hex')).toBe(ENCRYPTION_311.sealed.toLowerCase());
    expect(sealer.open(hex(ENCRYPTION_311.response)).toString('hex')).toBe(ENCRYPTION_311.responsePlain.toLowerCase());
  });

  it.each(['AES-128-CCM', 'AES-128-GCM', 'AES-256-CCM', 'AES-256-GCM'] as CipherName[])(
    '%s: what one side seals the other opens, in pieces or whole; nonces never repeat',
    (cipher) => {
      const keys = deriveSessionKeys('3.1.1', Buffer.alloc(16, 7), { preauthHash: Buffer.alloc(64, 3), cipher });
      const client = new Sealer(cipher, keys.encryptionKey, keys.decryptionKey, 42n);
      const server = new Sealer(cipher, keys.decryptionKey, keys.encryptionKey, 42n);
      const message = Buffer.from(Array.from({ length: 300 }, (_, i) => i & 0xff));
      const first = Buffer.concat(client.seal([message.subarray(0, 64), message.subarray(64, 100), message.subarray(100)]));
      const second = Buffer.concat(client.seal([message]));
      expect(server.open(first).equals(message)).toBe(true);
      expect(server.open(second).equals(message)).toBe(true);
      expect(first.subarray(20, 36).equals(second.subarray(20, 36))).toBe(false);
    },
  );

  it.each(['AES-128-GCM', 'AES-256-GCM', 'AES-128-CCM', 'AES-256-CCM'] as CipherName[])(
    '%s: a large frame opens in place where the crypto addon is built, and the same as through Node when not',
    (cipher) => {
      const keys = deriveSessionKeys('3.1.1', Buffer.alloc(16, 5), { preauthHash: Buffer.alloc(64, 6), cipher });
      const client = new Sealer(cipher, keys.encryptionKey, keys.decryptionKey, 7n);
      const server = new Sealer(cipher, keys.decryptionKey, keys.encryptionKey, 7n);
      const message = Buffer.from(Array.from({ length: 300_000 }, (_, i) => (i * 7) & 0xff));
      const frame = Buffer.concat(client.seal([message]));
      const viaNode = (() => {
        const saved = process.env['PIPEFILL_NATIVE_CRYPTO'];
        process.env['PIPEFILL_NATIVE_CRYPTO'] = '0';
        try {
          return server.open(Buffer.from(frame), (length) => Buffer.alloc(length));
        } finally {
          if (saved === undefined) delete process.env['PIPEFILL_NATIVE_CRYPTO'];
          else process.env['PIPEFILL_NATIVE_CRYPTO'] = saved;
        }
      })();
      expect(viaNode.equals(message)).toBe(true);
      const copy = Buffer.from(frame);
      const opened = server.open(copy, (length) => Buffer.alloc(length));
      expect(opened.equals(message)).toBe(true);
      // Built here (npm test builds it on Linux): then the plaintext is the frame's own memory.
      if (process.platform === 'linux') {
        expect(cryptoAddon().available).toBe(true);
        expect(opened.buffer).toBe(copy.buffer);
      }
      const altered = Buffer.from(frame);
      altered[100_000] = (altered[100_000] ?? 0) ^ 1;
      expect(() => server.open(altered, (length) => Buffer.alloc(length))).toThrow(TransformError);
    },
  );

  it('3.1.1 / AES-128-GCM: spent pieces sealed in place give the example frame byte for byte; kept pieces stay as they were', () => {
    const keys = deriveSessionKeys('3.1.1', hex(ENCRYPTION_311.sessionKey), { preauthHash: hex(ENCRYPTION_311.preauthHash), cipher: 'AES-128-GCM' });
    const sealer = new Sealer('AES-128-GCM', keys.encryptionKey, keys.decryptionKey, ENCRYPTION_311.sessionId);
    const plain = hex(ENCRYPTION_311.plain);
    // The WRITE's header and body are the caller's to keep, its data (after byte 112) the caller's to lose.
    const header = Buffer.from(plain.subarray(0, 64));
    const body = Buffer.from(plain.subarray(64, 112));
    const data = [Buffer.from(plain.subarray(112, 120)), Buffer.from(plain.subarray(120))];
    const frames = sealer.seal([header, body, ...data], hex(ENCRYPTION_311.nonceField), new Set(data));
    expect(Buffer.concat(frames).toString('hex')).toBe(ENCRYPTION_311.sealed.toLowerCase());
    expect(Buffer.concat([header, body]).equals(plain.subarray(0, 112))).toBe(true);
    if (process.platform === 'linux') {
      // Built here: the data pieces are sent as themselves, now ciphertext, and no new memory holds them.
      expect(frames.slice(-2)).toEqual(data);
      expect(frames[frames.length - 1]).toBe(data[1]);
      expect(Buffer.concat(data).equals(plain.subarray(112))).toBe(false);
    }
  });

  it.each(['AES-128-CCM', 'AES-128-GCM', 'AES-256-CCM', 'AES-256-GCM'] as CipherName[])(
    '%s: a compound with spent pieces among kept ones (and empty ones) opens to the same message',
    (cipher) => {
      const keys = deriveSessionKeys('3.1.1', Buffer.alloc(16, 9), { preauthHash: Buffer.alloc(64, 4), cipher });
      const client = new Sealer(cipher, keys.encryptionKey, keys.decryptionKey, 9n);
      const server = new Sealer(cipher, keys.decryptionKey, keys.encryptionKey, 9n);
      const message = Buffer.from(Array.from({ length: 200_003 }, (_, i) => (i * 13) & 0xff));
      const cuts = [0, 64, 112, 112, 70_001, 70_008, 70_072, 140_000, 200_003];
      const pieces = cuts.slice(1).map((end, i) => Buffer.from(message.subarray(cuts[i], end)));
      const kept = pieces.map((piece) => Buffer.from(piece));
      const spend = new Set<Buffer>([3, 4, 7].flatMap((index) => pieces.slice(index, index + 1)));
      const opened = server.open(Buffer.concat(client.seal(pieces, undefined, spend)), (length) => Buffer.alloc(length));
      expect(opened.equals(message)).toBe(true);
      pieces.forEach((piece, i) => {
        if (!spend.has(piece)) expect(piece.equals(kept[i] ?? Buffer.alloc(0))).toBe(true);
      });
    },
  );

  it('a spent piece given twice is sealed the way that copies, and opens to the same message', () => {
    const keys = deriveSessionKeys('3.1.1', Buffer.alloc(16, 2), { preauthHash: Buffer.alloc(64, 8), cipher: 'AES-128-GCM' });
    const client = new Sealer('AES-128-GCM', keys.encryptionKey, keys.decryptionKey, 5n);
    const server = new Sealer('AES-128-GCM', keys.decryptionKey, keys.encryptionKey, 5n);
    const twice = Buffer.from(Array.from({ length: 1000 }, (_, i) => i & 0xff));
    const kept = Buffer.from(twice);
    const opened = server.open(Buffer.concat(client.seal([Buffer.alloc(64, 1), twice, twice], undefined, new Set([twice]))));
    expect(opened.equals(Buffer.concat([Buffer.alloc(64, 1), kept, kept]))).toBe(true);
  });

  it('refuses a frame that was altered, is for another session, or lies about its size', () => {
    const keys = deriveSessionKeys('3.1.1', Buffer.alloc(16, 7), { preauthHash: Buffer.alloc(64, 3), cipher: 'AES-128-GCM' });
    const client = new Sealer('AES-128-GCM', keys.encryptionKey, keys.decryptionKey, 42n);
    const server = new Sealer('AES-128-GCM', keys.decryptionKey, keys.encryptionKey, 42n);
    const stranger = new Sealer('AES-128-GCM', keys.decryptionKey, keys.encryptionKey, 43n);
    const frame = Buffer.concat(client.seal([Buffer.alloc(100, 1)]));
    for (const at of [4, 25, 40, 60, frame.length - 1]) {
      const altered = Buffer.from(frame);
      altered[at] = (altered[at] ?? 0) ^ 0x10;
      expect(() => server.open(altered)).toThrow(TransformError);
    }
    expect(() => stranger.open(frame)).toThrow(/session/);
    expect(() => server.open(frame.subarray(0, frame.length - 1))).toThrow(/announces/);
    expect(() => server.open(Buffer.alloc(10))).toThrow(TransformError);
  });
});
