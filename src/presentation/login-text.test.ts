import { describe, expect, it } from 'vitest';
import { loginText } from './login-text.js';

describe('how a session logged on, in words', () => {
  it('names the account NTLMv2 sent, the Kerberos principal, and a guest as one', () => {
    expect(loginText({ mechanism: 'ntlmv2', account: 'CORP\\alice', whyNotKerberos: 'the server offers no Kerberos' })).toBe(
      'NTLMv2 as CORP\\alice (not Kerberos: the server offers no Kerberos)',
    );
    expect(loginText({ mechanism: 'kerberos', principal: 'alice@CORP.EXAMPLE.COM' })).toBe('Kerberos (alice@CORP.EXAMPLE.COM)');
    expect(loginText({ mechanism: 'ntlmv2', account: 'guest', guest: true })).toMatch(/^NTLMv2 as guest, logged on as a GUEST/);
    expect(loginText(undefined)).toBeUndefined();
  });
});
