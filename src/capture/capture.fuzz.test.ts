// The capture reader under crafted input (issue 53): a capture is a file a
// person was sent, and whatever it holds must end in a result or a
// CaptureFormatError, never a RangeError or TypeError from the arithmetic
// under it, a loop that does not end, or memory that grows with a lie.
// Deterministic: a seeded generator, every aligned 32-bit field set to the
// values where signed and unsigned arithmetic part ways, and random bytes.

import { describe, expect, it } from 'vitest';
import { xorshift32 } from '../test-support/xorshift.js';
import { pcapFile, pcapngFile } from '../test-support/pcap-builder.js';
import {
  conversation,
  createRequest,
  createResponse,
  negotiateRequest,
  negotiateResponse,
  readRequest,
  readResponse,
  writeRequest,
  writeResponse,
} from '../test-support/smb-conversation.js';
import { CaptureFormatError } from './capture-format.js';
import { captureAnalysisOf } from './analyze-capture.js';
import { CaptureReader } from './read-capture.js';

const EDGES_32 = [0, 1, 4, 8, 12, 0x7fff, 0xffff, 0x10000, 0x7fffffff, 0x80000000, 0xfffffff8, 0xffffffff];
const RANDOM_MUTATIONS = 3_000;

const messages = [
  { seconds: 0.03, fromServer: false, bytes: negotiateRequest() },
  { seconds: 0.04, fromServer: true, bytes: negotiateResponse(0x0302, 32) },
  { seconds: 0.05, fromServer: false, bytes: createRequest(1n) },
  { seconds: 0.07, fromServer: true, bytes: createResponse(1n, 5) },
  { seconds: 0.08, fromServer: false, bytes: writeRequest(2n, 5, 0, 1200) },
  { seconds: 0.1, fromServer: true, bytes: writeResponse(2n, 1200) },
  { seconds: 0.11, fromServer: false, bytes: readRequest(3n, 5, 0, 1200) },
  { seconds: 0.13, fromServer: true, bytes: readResponse(3n, 1200) },
];
const SAMPLES = [pcapFile(conversation(messages, { mss: 600 })), pcapngFile(conversation(messages, { mss: 600 }), 'sll2')];

/** Reads `bytes` as the CLI would (with the model's analysis where `analyse`); returns how it ended. */
function outcome(bytes: Buffer, analyse = false): 'read' | 'refused' {
  const reader = new CaptureReader();
  try {
    reader.push(bytes);
    const read = reader.finish();
    if (analyse) captureAnalysisOf(read);
    return 'read';
  } catch (error) {
    if (error instanceof CaptureFormatError) return 'refused';
    throw error;
  }
}

describe('the capture reader under crafted input', () => {
  it('reads the samples as they are', () => {
    for (const sample of SAMPLES) expect(outcome(sample, true)).toBe('read');
  });

  it('ends every sample with each aligned 32-bit field set to an edge value in a result or a typed error', () => {
    let refused = 0;
    for (const sample of SAMPLES)
      for (let at = 0; at + 4 <= sample.length; at += 4)
        for (const value of EDGES_32) {
          const bytes = Buffer.from(sample);
          bytes.writeUInt32LE(value, at);
          if (outcome(bytes) === 'refused') refused++;
        }
    // The container's own fields are checked: some of these must have been refused, not all read.
    expect(refused).toBeGreaterThan(0);
  });

  it('ends random bytes written over the samples, and the samples cut anywhere, in a result or a typed error', () => {
    const next = xorshift32(0x53_4d_42);
    for (let round = 0; round < RANDOM_MUTATIONS; round++) {
      const sample = SAMPLES[round % SAMPLES.length] ?? Buffer.alloc(0);
      const bytes = Buffer.from(sample);
      const changes = 1 + (next() % 8);
      for (let change = 0; change < changes; change++) bytes[next() % bytes.length] = next() & 0xff;
      // One in ten is set against the model too: what a crafted capture states reaches it as numbers.
      expect(['read', 'refused']).toContain(outcome(round % 5 === 0 ? bytes.subarray(0, next() % bytes.length) : bytes, round % 10 === 1));
    }
  });
});
