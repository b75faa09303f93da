import { describe, expect, it } from 'vitest';
import { planLogin } from './login-choice.js';
import { smbSessionKey } from './kerberos-login.js';

const facts = { auth: 'auto' as const, host: 'files.corp.example.com', hasPassword: true, serverOffersKerberos: 'offered' as const };

describe('which logon, as Windows chooses', () => {
  it('Kerberos by name, falling back to NTLMv2 only with a password to fall back with', () => {
    expect(planLogin(facts)).toEqual({ mechanism: 'kerberos', mayFallBack: true });
    expect(planLogin({ ...facts, hasPassword: false })).toEqual({ mechanism: 'kerberos', mayFallBack: false });
    expect(planLogin({ ...facts, auth: 'kerberos' })).toEqual({ mechanism: 'kerberos', mayFallBack: false });
  });

  it('NTLMv2 by address, where the server offers no Kerberos, where asked, and where Kerberos is not built — each saying why', () => {
    expect(planLogin({ ...facts, host: '192.0.2.10' })).toEqual({ mechanism: 'ntlmv2', whyNotKerberos: expect.stringMatching(/address/) });
    expect(planLogin({ ...facts, host: '2001:db8::1' }).mechanism).toBe('ntlmv2');
    expect(planLogin({ ...facts, serverOffersKerberos: 'not-offered' })).toEqual({ mechanism: 'ntlmv2', whyNotKerberos: 'the server offers no Kerberos' });
    expect(planLogin({ ...facts, auth: 'ntlm' }).mechanism).toBe('ntlmv2');
    expect(planLogin({ ...facts, kerberosUnavailable: 'not built' })).toEqual({ mechanism: 'ntlmv2', whyNotKerberos: expect.stringMatching(/not built/) });
  });

  it('nothing where nothing can work: a clear reason and fix', () => {
    for (const plan of [
      planLogin({ ...facts, host: '192.0.2.10', hasPassword: false }),
      planLogin({ ...facts, auth: 'ntlm', hasPassword: false }),
      planLogin({ ...facts, auth: 'kerberos', kerberosUnavailable: 'not built' }),
    ])
      expect(plan).toEqual({ mechanism: 'none', why: expect.any(String), fix: expect.any(String) });
  });
});

describe('the SMB session key from a Kerberos context (MS-SMB2 3.2.5.3)', () => {
  it('is its first 16 bytes, right-padded with zeros where shorter', () => {
    const aes256 = Buffer.from([...Array(32).keys()]);
    expect(smbSessionKey(aes256)).toEqual(aes256.subarray(0, 16));
    expect(smbSessionKey(Buffer.from([1, 2, 3]))).toEqual(Buffer.from([1, 2, 3, ...Array(13).fill(0)]));
  });
});
