import { describe, expect, it } from 'vitest';
import { DerError, element, oidBytes, readChildren, readElement } from './der.js';
import { KERBEROS_OID, MS_KERBEROS_OID, negTokenInit, negTokenRespWithMic, OFFERED_MECH_TYPES, parseNegTokenResp, SpnegoError } from './spnego.js';

const hex = (text: string) => Buffer.from(text.replace(/\s/g, ''), 'hex');

/** A negTokenResp as RFC 4178 4.2.2 lays it out, field by field. */
function resp(fields: { state?: number; mech?: Buffer; token?: Buffer; mic?: Buffer }): Buffer {
  const parts = [
    ...(fields.state === undefined ? [] : [element(0xa0, element(0x0a, Buffer.from([fields.state])))]),
    ...(fields.mech === undefined ? [] : [element(0xa1, element(0x06, fields.mech))]),
    ...(fields.token === undefined ? [] : [element(0xa2, element(0x04, fields.token))]),
    ...(fields.mic === undefined ? [] : [element(0xa3, element(0x04, fields.mic))]),
  ];
  return element(0xa1, element(0x30, ...parts));
}

describe('DER', () => {
  it("encodes the OIDs as X.690 8.19 does (Kerberos's as RFC 4121 4.1 prints it, SPNEGO's as RFC 4178 3)", () => {
    expect(oidBytes('1.2.840.113554.1.2.2')).toEqual(hex('2a 86 48 86 f7 12 01 02 02'));
    expect(oidBytes('1.3.6.1.5.5.2')).toEqual(hex('2b 06 01 05 05 02'));
    expect(oidBytes('1.2.840.48018.1.2.2')).toEqual(hex('2a 86 48 82 f7 12 01 02 02'));
  });

  it('writes short, one-byte and two-byte lengths, and reads them back', () => {
    for (const size of [0, 127, 128, 255, 256, 4000, 70_000]) {
      const encoded = element(0x04, Buffer.alloc(size, 7));
      const read = readElement(encoded);
      expect(read.content.length).toBe(size);
      expect(read.end).toBe(encoded.length);
    }
  });

  it('refuses a length past the end, a length of four octets, and a multi-byte tag', () => {
    expect(() => readElement(hex('04 05 01 02'))).toThrow(DerError);
    expect(() => readElement(hex('04 84 00 00 00 01 00'))).toThrow(DerError);
    expect(() => readElement(hex('1f 01 00'))).toThrow(DerError);
    expect(() => readChildren(hex('04 01 00 04'))).toThrow(DerError);
  });
});

describe('SPNEGO (RFC 4178)', () => {
  it('wraps the AP-REQ in an InitialContextToken offering Kerberos alone', () => {
    const token = negTokenInit(Buffer.from('AP-REQ'));
    const outer = readElement(token);
    expect(outer.tag).toBe(0x60);
    const [oid, init] = readChildren(outer.content);
    expect(oid?.content).toEqual(hex('2b 06 01 05 05 02'));
    const sequence = readElement(init?.content ?? Buffer.alloc(0));
    const [mechTypes, mechToken] = readChildren(sequence.content);
    expect(mechTypes?.tag).toBe(0xa0);
    expect(mechTypes?.content).toEqual(OFFERED_MECH_TYPES);
    expect(readChildren(readElement(OFFERED_MECH_TYPES).content).map((mech) => mech.content)).toEqual([KERBEROS_OID]);
    expect(mechToken?.tag).toBe(0xa2);
    expect(readElement(mechToken?.content ?? Buffer.alloc(0)).content.toString()).toBe('AP-REQ');
  });

  it("reads a server's accept-completed with its AP-REP and MIC, either Kerberos OID", () => {
    for (const mech of [KERBEROS_OID, MS_KERBEROS_OID]) {
      expect(parseNegTokenResp(resp({ state: 0, mech, token: Buffer.from('AP-REP'), mic: Buffer.from('MIC') }))).toEqual({
        negState: 'accept-completed',
        kerberosChosen: true,
        responseToken: Buffer.from('AP-REP'),
        mechListMic: Buffer.from('MIC'),
      });
    }
    expect(parseNegTokenResp(resp({ state: 3 }))).toEqual({ negState: 'request-mic' });
    // NTLMSSP chosen: not Kerberos.
    expect(parseNegTokenResp(resp({ state: 1, mech: oidBytes('1.3.6.1.4.1.311.2.2.10') })).kerberosChosen).toBe(false);
  });

  it('builds the MIC-only reply an acceptor asks for', () => {
    expect(parseNegTokenResp(negTokenRespWithMic(Buffer.from('mine')))).toEqual({ mechListMic: Buffer.from('mine') });
  });

  it('refuses what a hostile server might send instead', () => {
    const bad = [
      negTokenInit(Buffer.from('x')),
      resp({ state: 4 }),
      element(0xa1, element(0x30, element(0xa0, element(0x0a, Buffer.from([0, 0]))))),
      element(0xa1, element(0x30, element(0xa2, element(0x06, Buffer.from([1]))))),
      resp({ token: Buffer.alloc(40) }).subarray(0, 20),
      Buffer.alloc(0),
    ];
    for (const token of bad) expect(() => parseNegTokenResp(token)).toThrow(SpnegoError);
  });
});
