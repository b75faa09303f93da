import { describe, expect, it } from 'vitest';
import { PipefillInputError } from './errors.js';
import { formatLoginName, kerberosPrincipal, ntlmIdentity, parseLoginName } from './login-name.js';

describe('login names as people type them', () => {
  it('reads alice, CORP\\alice and alice@corp.example.com', () => {
    expect(parseLoginName('alice')).toEqual({ user: 'alice' });
    expect(parseLoginName('CORP\\alice')).toEqual({ user: 'alice', domain: 'CORP' });
    expect(parseLoginName(' alice@corp.example.com ')).toEqual({ user: 'alice', realm: 'CORP.EXAMPLE.COM' });
    expect(parseLoginName('alice', 'CORP')).toEqual({ user: 'alice', domain: 'CORP' });
    expect(parseLoginName('corp\\alice', 'CORP')).toEqual({ user: 'alice', domain: 'corp' });
  });

  it('refuses a domain given twice, differently, and names that are not one', () => {
    for (const [user, domain] of [
      ['CORP\\alice', 'OTHER'],
      ['CORP\\alice@x.com', undefined],
      ['\\alice', undefined],
      ['CORP\\', undefined],
      ['', undefined],
      ['alice@corp.com', 'OTHER'],
    ] as const)
      expect(() => parseLoginName(user, domain)).toThrow(PipefillInputError);
  });

  it('finds the Kerberos principal: the realm typed, a DNS domain, the default realm whose first label is the NetBIOS domain', () => {
    expect(kerberosPrincipal(parseLoginName('alice@corp.example.com'), undefined)).toBe('alice@CORP.EXAMPLE.COM');
    expect(kerberosPrincipal(parseLoginName('corp.example.com\\alice'), undefined)).toBe('alice@CORP.EXAMPLE.COM');
    expect(kerberosPrincipal(parseLoginName('CORP\\alice'), 'CORP.EXAMPLE.COM')).toBe('alice@CORP.EXAMPLE.COM');
    expect(kerberosPrincipal(parseLoginName('OTHER\\alice'), 'CORP.EXAMPLE.COM')).toBe('alice@OTHER');
    expect(kerberosPrincipal(parseLoginName('alice'), 'CORP.EXAMPLE.COM')).toBe('alice@CORP.EXAMPLE.COM');
    expect(kerberosPrincipal(parseLoginName('alice'), undefined)).toBe('alice');
  });

  it('gives NTLM the user and domain, a UPN whole with no domain (MS-NLMP 3.1.5.1.2)', () => {
    expect(ntlmIdentity(parseLoginName('CORP\\alice'))).toEqual({ user: 'alice', domain: 'CORP' });
    expect(ntlmIdentity(parseLoginName('alice@corp.example.com'))).toEqual({ user: 'alice@corp.example.com', domain: '' });
    expect(ntlmIdentity(parseLoginName('alice'))).toEqual({ user: 'alice', domain: '' });
  });

  it('prints the login as it was meant', () => {
    expect(formatLoginName(parseLoginName('CORP\\alice'))).toBe('CORP\\alice');
    expect(formatLoginName(parseLoginName('alice@corp.example.com'))).toBe('alice@CORP.EXAMPLE.COM');
  });
});
