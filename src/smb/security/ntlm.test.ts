// NTLMv2 against MS-NLMP 4.2.4 and Microsoft's SMB 3.1.1 session key example.

import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { challengeMessage4243, hex, NTLM_EXAMPLE } from '../../test-support/smb-vectors.js';
import { authenticateMessage, negotiateMessage, NtlmError, ntlmv2Proof, ntlmv2Temp, ntowfV2, parseChallenge, rc4, upcaseOneToOne } from './ntlm.js';

const AV_DOMAIN_SERVER = hex('02000c0044006f006d00610069006e0001000c00530065007200760065007200 00000000');

describe('NTLMv2 (MS-NLMP 3.3.2)', () => {
  it('MS-NLMP 4.2.4: NTOWFv2, NTProofStr, session base key and the RC4-encrypted session key', () => {
    const responseKey = ntowfV2('Password', 'User', 'Domain');
    expect(responseKey.toString('hex')).toBe('0c868a403bfd7a93a3001ef22ef02e3f');
    const temp = ntlmv2Temp(Buffer.alloc(8), hex('aaaaaaaaaaaaaaaa'), AV_DOMAIN_SERVER);
    const proof = ntlmv2Proof(responseKey, hex('0123456789abcdef'), temp);
    expect(proof.ntProofStr.toString('hex')).toBe('68cd0ab851e51c96aabc927bebef6a1c');
    expect(proof.sessionBaseKey.toString('hex')).toBe('8de40ccadbc14a82f15cb0ad0de95ca3');
    expect(rc4(proof.sessionBaseKey, Buffer.alloc(16, 0x55)).toString('hex')).toBe('c5dad2544fc9799094ce1ce90bc9d03e');
  });

  it("Microsoft's SMB 3.1.1 example: the password gives the session key the server used", () => {
    const responseKey = ntowfV2(NTLM_EXAMPLE.password, NTLM_EXAMPLE.user, NTLM_EXAMPLE.domain);
    expect(responseKey.toString('hex')).toBe(NTLM_EXAMPLE.ntowfV2.toLowerCase());
    const proof = ntlmv2Proof(responseKey, hex(NTLM_EXAMPLE.serverChallenge), hex(NTLM_EXAMPLE.temp));
    expect(proof.ntProofStr.toString('hex')).toBe(NTLM_EXAMPLE.ntProofStr.toLowerCase());
    expect(proof.sessionBaseKey.toString('hex')).toBe(NTLM_EXAMPLE.keyExchangeKey.toLowerCase());
    // RC4 is its own inverse: the server recovers the exported key the client chose.
    expect(rc4(proof.sessionBaseKey, hex(NTLM_EXAMPLE.encryptedRandomSessionKey)).toString('hex')).toBe(NTLM_EXAMPLE.exportedSessionKey.toLowerCase());
  });

  it('builds an AUTHENTICATE whose fields point inside it and that carries the key exchange and a MIC', () => {
    const challenge = Buffer.alloc(48 + 36 + 12);
    Buffer.from('NTLMSSP\0', 'latin1').copy(challenge, 0);
    challenge.writeUInt32LE(2, 8);
    challenge.writeUInt32LE(0xe28a8215, 20);
    hex('0123456789abcdef').copy(challenge, 24);
    const info = Buffer.concat([AV_DOMAIN_SERVER.subarray(0, AV_DOMAIN_SERVER.length - 4), hex('07000800'), Buffer.alloc(8, 1), Buffer.alloc(4)]);
    challenge.writeUInt16LE(info.length, 40);
    challenge.writeUInt16LE(info.length, 42);
    challenge.writeUInt32LE(48, 44);
    const full = Buffer.concat([challenge.subarray(0, 48), info]);
    const negotiate = negotiateMessage();
    const exported = Buffer.alloc(16, 9);
    const { message, sessionKey } = authenticateMessage({ user: 'u', password: 'p', domain: 'D', workstation: 'w' }, negotiate, full, {
      exportedSessionKey: exported,
    });
    expect(sessionKey.equals(exported)).toBe(true);
    for (const at of [12, 20, 28, 36, 44, 52]) expect(message.readUInt32LE(at + 4) + message.readUInt16LE(at)).toBeLessThanOrEqual(message.length);
    const fieldAt = (at: number) => message.subarray(message.readUInt32LE(at + 4), message.readUInt32LE(at + 4) + message.readUInt16LE(at));
    // The server's view: the NT response proves the password and yields the key that unwraps the exported key.
    const ntResponse = fieldAt(20);
    const proof = ntlmv2Proof(ntowfV2('p', 'u', 'D'), hex('0123456789abcdef'), ntResponse.subarray(16));
    expect(proof.ntProofStr.equals(ntResponse.subarray(0, 16))).toBe(true);
    expect(rc4(proof.sessionBaseKey, fieldAt(52)).equals(exported)).toBe(true);
    // The challenge had a timestamp, so the MIC covers all three messages under the exported key.
    const zeroed = Buffer.from(message);
    zeroed.fill(0, 72, 88);
    expect(message.subarray(72, 88).equals(createHmac('md5', exported).update(negotiate).update(full).update(zeroed).digest())).toBe(true);
    expect(fieldAt(12).equals(Buffer.alloc(24))).toBe(true);
  });

  it("reads what the server says of itself: the Version and computer name of MS-NLMP 4.2.4.3's CHALLENGE_MESSAGE", () => {
    const message = challengeMessage4243();
    const challenge = parseChallenge(message);
    expect(challenge.version).toEqual({ major: 6, minor: 0, build: 6000, revision: 15 });
    expect(challenge.computerName).toBe('Server');
    // A server whose payload (the target info, at 0x44) starts where the Version would be sent none, whatever its flags say.
    const noVersion = Buffer.concat([message.subarray(0, 48), message.subarray(0x44)]);
    noVersion.writeUInt16LE(0, 12);
    noVersion.writeUInt32LE(48, 44);
    expect(parseChallenge(noVersion).version).toBeUndefined();
    expect(parseChallenge(noVersion).computerName).toBe('Server');
  });

  it('rejects a hostile CHALLENGE with a clear error instead of reading past it', () => {
    const base = Buffer.alloc(56);
    Buffer.from('NTLMSSP\0', 'latin1').copy(base, 0);
    base.writeUInt32LE(2, 8);
    base.writeUInt32LE(0xe28a8215, 20);
    const lying = Buffer.from(base);
    lying.writeUInt16LE(4000, 40);
    lying.writeUInt32LE(48, 44);
    expect(() => parseChallenge(lying)).toThrow(/outside/);
    const badPair = Buffer.from(base);
    badPair.writeUInt16LE(8, 40);
    badPair.writeUInt32LE(48, 44);
    badPair.writeUInt16LE(2, 48);
    badPair.writeUInt16LE(200, 50);
    expect(() => parseChallenge(badPair)).toThrow(NtlmError);
    expect(() => parseChallenge(Buffer.from('not ntlm at all, really not'))).toThrow(NtlmError);
    const v1 = Buffer.from(base);
    v1.writeUInt32LE(0x00000201, 20);
    expect(() => parseChallenge(v1)).toThrow(/NTLMv2/);
  });
});

describe('UpperCase(User) for NTOWFv2, one code unit to one (issue 37)', () => {
  it('upper-cases each unit as Windows and Samba do, never expanding one into two', () => {
    expect(upcaseOneToOne('User')).toBe('USER');
    // Full case mapping makes ß "SS" and the ligature ﬁ "FI"; a server keeps them.
    expect(upcaseOneToOne('straße')).toBe('STRAßE');
    expect(upcaseOneToOne('ﬁle')).toBe('ﬁLE');
    expect(upcaseOneToOne('élodie')).toBe('ÉLODIE');
    // Half a surrogate pair is left alone; a character outside the BMP has no simple upper case here.
    expect(upcaseOneToOne('a\u{10428}b')).toBe('A\u{10428}B');
  });

  it('keys NTOWFv2 by that upper case: straße logs on as STRAßE, not STRASSE', () => {
    const key = (name: string) => ntowfV2('Password', name, 'Domain').toString('hex');
    expect(key('straße')).toBe(key('STRAßE'));
    expect(key('straße')).not.toBe(key('STRASSE'));
    // MS-NLMP 4.2.4's example is unchanged.
    expect(key('User')).toBe(ntowfV2('Password', 'USER', 'Domain').toString('hex'));
  });
});
