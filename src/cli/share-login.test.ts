import { describe, expect, it } from 'vitest';
import { passwordIfTicketRefused, usesOwnTicket, withPassword } from './share-login.js';

describe("the person's own Kerberos ticket, where no password is given (issue 50)", () => {
  const named = { share: '//dc.pf.test/share' };
  const held = () => true;
  const none = () => false;

  it('is used for a share named by its server, unless NTLM was asked for', () => {
    expect(usesOwnTicket(named, held)).toBe(true);
    expect(usesOwnTicket({ ...named, auth: 'ntlm' }, held)).toBe(false);
    // No ticket: a password is needed, unless Kerberos was asked for (its failure then says why).
    expect(usesOwnTicket(named, none)).toBe(false);
    expect(usesOwnTicket({ ...named, auth: 'kerberos' }, none)).toBe(true);
  });

  it('is not used for a share reached by its address: Kerberos needs the name', () => {
    expect(usesOwnTicket({ share: '//192.0.2.10/share' }, held)).toBe(false);
    expect(usesOwnTicket({ share: '//[2001:db8::1]/share' }, held)).toBe(false);
  });

  it('asks for no password where it is used; where none is held, asks as before', async () => {
    const login = { ...named, user: 'alice@PF.TEST' };
    await expect(withPassword(login, {}, held)).resolves.toMatchObject({ password: '' });
    // Not a terminal here: the request for a password is the error, which now names Kerberos.
    await expect(withPassword(login, {}, none)).rejects.toThrow(/No password given/);
  });
});

describe('a password after a ticket that would not do (issue 50)', () => {
  const refused = Object.assign(new Error('The server offers no Kerberos.'), { kind: 'kerberos' });
  const input = { user: 'alice', password: '' };

  it('runs again with the password where the ticket was refused at a terminal; elsewhere the refusal stands', async () => {
    const calls: string[] = [];
    const call = async (login: { password: string }) => {
      calls.push(login.password);
      if (login.password === '') throw refused;
      return 'done';
    };
    const told: string[] = [];
    // Away from a terminal (as here): the Kerberos failure, which says why.
    await expect(
      passwordIfTicketRefused(
        input,
        {},
        call,
        (line) => told.push(line),
        () => false,
      ),
    ).rejects.toBe(refused);
    expect(calls).toEqual(['']);
    // Insisting on Kerberos, or a password given: never asked again.
    await expect(
      passwordIfTicketRefused(
        { ...input, auth: 'kerberos' as const },
        {},
        call,
        (line) => told.push(line),
        () => true,
      ),
    ).rejects.toBe(refused);
    await expect(
      passwordIfTicketRefused(
        input,
        { 'password-env': 'X' },
        call,
        (line) => told.push(line),
        () => true,
      ),
    ).rejects.toBe(refused);
    // Any other failure is not the ticket's.
    const other = Object.assign(new Error('no such share'), { kind: 'share-not-found' });
    await expect(
      passwordIfTicketRefused(
        input,
        {},
        () => Promise.reject(other),
        (line) => told.push(line),
        () => true,
      ),
    ).rejects.toBe(other);
    expect(told).toEqual([]);
  });
});
