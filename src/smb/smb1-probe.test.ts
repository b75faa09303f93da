import { describe, expect, it } from 'vitest';
import { acceptsSmb1, smb1NegotiateRequest } from './smb1-probe.js';

describe('the SMB1 probe (MS-CIFS 2.2.4.52)', () => {
  it('frames one SMB_COM_NEGOTIATE offering NT LM 0.12', () => {
    const frame = smb1NegotiateRequest();
    // Direct TCP: a zero byte and the 24-bit length of what follows.
    expect(frame.readUInt32BE(0)).toBe(frame.length - 4);
    const message = frame.subarray(4);
    expect(message.subarray(0, 4)).toEqual(Buffer.from([0xff, 0x53, 0x4d, 0x42]));
    expect(message[4]).toBe(0x72);
    // WordCount 0; ByteCount; BufferFormat 0x02 and the OEM string with its zero byte.
    expect(message[32]).toBe(0);
    expect(message.readUInt16LE(33)).toBe(12);
    expect(message.subarray(35).toString('latin1')).toBe('\x02NT LM 0.12\x00');
  });

  const reply = (status: number, dialectIndex: number, command = 0x72) => {
    const message = Buffer.alloc(32 + 1 + 2 * 17 + 2);
    message.writeUInt32BE(0xff534d42, 0);
    message[4] = command;
    message.writeUInt32LE(status, 5);
    message[32] = 17;
    message.writeUInt16LE(dialectIndex, 33);
    return message;
  };

  it('reads a response that chose the dialect as SMB1 spoken, and nothing else', () => {
    expect(acceptsSmb1(reply(0, 0))).toBe(true);
    // DialectIndex 0xFFFF: none of those offered.
    expect(acceptsSmb1(reply(0, 0xffff))).toBe(false);
    expect(acceptsSmb1(reply(0xc0000022, 0))).toBe(false);
    expect(acceptsSmb1(reply(0, 0, 0x73))).toBe(false);
    // An SMB2 header, a short reply, nothing.
    expect(acceptsSmb1(Buffer.concat([Buffer.from([0xfe, 0x53, 0x4d, 0x42]), reply(0, 0).subarray(4)]))).toBe(false);
    expect(acceptsSmb1(reply(0, 0).subarray(0, 34))).toBe(false);
    expect(acceptsSmb1(Buffer.alloc(0))).toBe(false);
  });
});
