import { describe, expect, it } from 'vitest';
import { loginText } from './login-text.js';

describe('how a session logged on, in words', () => {
  it('names the account NTLMv2 sent, the Kerberos principal, and a guest as one', () => {
    expect(loginText({ mechanism: 'ntlmv2', account: 'CORP\\alice', whyNotKerberos: 'NTLM was asked for' })).toBe(
      'NTLMv2 as CORP\\alice (not Kerberos: NTLM was asked for)',
    );
    expect(loginText({ mechanism: 'kerberos', principal: 'alice@CORP.EXAMPLE.COM' })).toBe('Kerberos (alice@CORP.EXAMPLE.COM)');
    expect(loginText({ mechanism: 'ntlmv2', account: 'guest', guest: true })).toMatch(/^NTLMv2 as guest, logged on as a GUEST/);
    expect(loginText(undefined)).toBeUndefined();
  });

  it("says what an NTLM logon means where NTLM is blocked, and the fix (issue 50: Windows 11 24H2 and Server 2025's readiness)", () => {
    expect(loginText({ mechanism: 'ntlmv2', account: 'alice', whyNotKerberos: 'the server was reached by its address; Kerberos needs its name' })).toMatch(
      /; where NTLM is blocked \(Windows 11 24H2 can block it; Windows Server 2025 domains restrict it\), reach the share by its DNS name, so Kerberos is used$/,
    );
    expect(loginText({ mechanism: 'ntlmv2', account: 'alice', whyNotKerberos: 'the server offers no Kerberos' })).toMatch(
      /join the server to the domain \(Samba: security = ads\), so it takes Kerberos$/,
    );
    expect(loginText({ mechanism: 'kerberos', principal: 'alice@CORP.EXAMPLE.COM' })).not.toMatch(/blocked/);
  });
});
