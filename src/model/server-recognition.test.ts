import { describe, expect, it } from 'vitest';
import { recogniseServer } from './server-recognition.js';

describe('recognising the server from its NTLM CHALLENGE version', () => {
  it("takes 6.1 build 0 for Samba, as Debian's Samba 4.17 writes it", () => {
    expect(recogniseServer({ major: 6, minor: 1, build: 0, revision: 15 })).toMatchObject({ profile: 'samba' });
  });

  it('takes a Windows build for its server release', () => {
    expect(recogniseServer({ major: 10, minor: 0, build: 26100, revision: 15 }).profile).toBe('win2025');
    expect(recogniseServer({ major: 10, minor: 0, build: 20348, revision: 15 }).profile).toBe('win2022');
    expect(recogniseServer({ major: 10, minor: 0, build: 17763, revision: 15 }).profile).toBe('win2012plus');
    expect(recogniseServer({ major: 6, minor: 3, build: 9600, revision: 15 }).profile).toBe('win2012plus');
    expect(recogniseServer({ major: 6, minor: 1, build: 7601, revision: 15 }).profile).toBe('win2008-qfe');
    expect(recogniseServer({ major: 6, minor: 0, build: 6002, revision: 15 }).profile).toBe('win2008-rtm');
  });

  it('says when it does not know, rather than guess', () => {
    expect(recogniseServer(undefined)).toEqual({ evidence: 'the server sent no NTLM challenge with a version in it' });
    expect(recogniseServer({ major: 10, minor: 0, build: 0, revision: 15 }).profile).toBeUndefined();
    expect(recogniseServer({ major: 5, minor: 2, build: 3790, revision: 15 }).profile).toBeUndefined();
    expect(recogniseServer({ major: 5, minor: 2, build: 3790, revision: 15 }).evidence).toMatch(/does not recognise/);
  });
});
