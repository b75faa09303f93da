import { describe, expect, it } from 'vitest';
import { sessionEncryptionRequiredBy, shareEncryption, signingRequiredBy } from './protection-policy.js';

describe('who requires signing and encryption', () => {
  it('signing: the server first, then the client generation, then the person', () => {
    expect(signingRequiredBy(true, true, { signing: 'required' })).toBe('server');
    expect(signingRequiredBy(false, true, { signing: 'required' })).toBe('profile');
    expect(signingRequiredBy(false, false, { signing: 'required' })).toBe('person');
    expect(signingRequiredBy(false, false, { signing: 'auto' })).toBeNull();
    expect(signingRequiredBy(false, false, {})).toBeNull();
  });

  it('encryption of the whole session: the server, else the person', () => {
    expect(sessionEncryptionRequiredBy(true, {})).toBe('server');
    expect(sessionEncryptionRequiredBy(true, { encryption: 'off' })).toBe('server');
    expect(sessionEncryptionRequiredBy(false, { encryption: 'required' })).toBe('person');
    expect(sessionEncryptionRequiredBy(false, { encryption: 'auto' })).toBeNull();
  });

  it('a share that requires encryption: sealed from there on, refused when the person turned it off, or SMB 3 needed', () => {
    expect(shareEncryption(false, false, false, {})).toBe('unchanged');
    expect(shareEncryption(true, true, true, { encryption: 'off' })).toBe('unchanged');
    expect(shareEncryption(true, false, true, {})).toBe('share');
    expect(shareEncryption(true, false, true, { encryption: 'off' })).toBe('refused-by-person');
    expect(shareEncryption(true, false, false, {})).toBe('needs-smb3');
  });
});
