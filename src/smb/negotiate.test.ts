// NEGOTIATE against Microsoft's example exchange (the 3.1.1 response of the
// "anatomy of signing" appendix) and against replies that lie.

import { describe, expect, it } from 'vitest';
import { WINDOWS_10_11_OFFER } from '../model/smb-security.js';
import { hex, SMB311_EXCHANGE } from '../test-support/smb-vectors.js';
import { NegotiateError, negotiateRequest, ntlmInMechList, parseNegotiate } from './negotiate.js';

const exampleResponse = () => hex(SMB311_EXCHANGE.steps[1]?.message ?? '');
const exampleRequest = () => hex(SMB311_EXCHANGE.steps[0]?.message ?? '');

describe('NEGOTIATE', () => {
  it("reads Microsoft's example 3.1.1 response: the dialect, AES-128-GCM from its context, no signing context (so AES-CMAC), the SPNEGO hint", () => {
    const result = parseNegotiate(exampleResponse(), WINDOWS_10_11_OFFER);
    expect(result.dialect).toBe('3.1.1');
    expect(result.cipher).toBe('AES-128-GCM');
    expect(result.signing).toBe('AES-128-CMAC');
    expect(result.maxReadSize).toBe(8 * 1024 * 1024);
    expect(result.securityBlob.length).toBe(0x140);
    expect(ntlmInMechList(result.securityBlob)).toBe('offered');
  });

  it('lays out a 3.1.1 request as the example does: dialects, then 8-aligned contexts at the offset it names', () => {
    const offer = { ...WINDOWS_10_11_OFFER, ciphers: ['AES-128-GCM', 'AES-128-CCM'] as const, signing: [] };
    const example = exampleRequest().subarray(64);
    const ours = negotiateRequest(offer, example.subarray(12, 28), Buffer.from('FA49E6578F1F3A9F4CD3E9CC14A67AA884B3D05844E0E5A118225C15887F32FF', 'hex'));
    // Same structure size, dialect count, GUID, context offset and count, dialects and contexts; the example's client also sets capabilities 0x7f.
    expect(ours.readUInt16LE(0)).toBe(36);
    expect(ours.readUInt16LE(2)).toBe(example.readUInt16LE(2));
    expect(ours.subarray(12, 36).equals(example.subarray(12, 36))).toBe(true);
    expect(ours.subarray(36).equals(example.subarray(36))).toBe(true);
  });

  it('calls a dialect that was not offered a broken rule, not "refused them" (issue 37, item 10); one it does not speak is no dialect in common', () => {
    const reply = exampleResponse();
    reply.writeUInt16LE(0x0300, 64 + 4);
    expect(() => parseNegotiate(reply, { ...WINDOWS_10_11_OFFER, dialects: ['2.1'] })).toThrow(
      expect.objectContaining({
        noCommonDialect: false,
        message: expect.stringMatching(/chose SMB 3\.0, which this client did not offer \(it offered SMB 2\.1\)/),
      }),
    );
    reply.writeUInt16LE(0x02ff, 64 + 4);
    expect(() => parseNegotiate(reply, WINDOWS_10_11_OFFER)).toThrow(/0x02ff/);
  });

  it.each([
    ['a security buffer past the end', (reply: Buffer) => reply.writeUInt16LE(0xfff0, 64 + 58)],
    ['contexts past the end', (reply: Buffer) => reply.writeUInt32LE(reply.length + 8, 64 + 60)],
    ['a context longer than the reply', (reply: Buffer) => reply.writeUInt16LE(0xffff, reply.readUInt32LE(64 + 60) + 2)],
    ['a thousand contexts', (reply: Buffer) => reply.writeUInt16LE(1000, 64 + 6)],
    ['a cipher that was not offered', (reply: Buffer) => reply.writeUInt16LE(0x0004, reply.length - 2)],
  ])('a reply with %s is a NegotiateError, not a crash', (_what, corrupt) => {
    const reply = exampleResponse();
    corrupt(reply);
    expect(() => parseNegotiate(reply, { ...WINDOWS_10_11_OFFER, ciphers: ['AES-128-GCM'] })).toThrow(NegotiateError);
  });

  it.each([
    ['MaxTransactSize', 28],
    ['MaxReadSize', 32],
    ['MaxWriteSize', 36],
  ])('refuses a %s below 64 KiB (MS-SMB2 3.2.5.2), which would make every request empty', (name, offset) => {
    for (const value of [0, 1, 65_535]) {
      const reply = exampleResponse();
      reply.writeUInt32LE(value, 64 + offset);
      expect(() => parseNegotiate(reply, WINDOWS_10_11_OFFER)).toThrow(new RegExp(`${name} is ${value} bytes`));
    }
    const reply = exampleResponse();
    reply.writeUInt32LE(65_536, 64 + offset);
    expect(parseNegotiate(reply, WINDOWS_10_11_OFFER)).toBeDefined();
  });

  it('a truncated reply is a NegotiateError', () => {
    expect(() => parseNegotiate(exampleResponse().subarray(0, 100), WINDOWS_10_11_OFFER)).toThrow(NegotiateError);
  });

  it('tells a Kerberos-only mechanism list apart', () => {
    expect(ntlmInMechList(Buffer.from('a0...06092a864886f712010202...', 'latin1'))).toBe('unknown');
    expect(ntlmInMechList(Buffer.concat([Buffer.from('3010', 'hex'), Buffer.from('06092a864886f712010202', 'hex')]))).toBe('kerberos-only');
    expect(ntlmInMechList(Buffer.alloc(0))).toBe('unknown');
  });
});
