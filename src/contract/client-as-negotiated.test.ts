import { describe, expect, it } from 'vitest';
import { CLIENT_PROFILES } from '../model/client-profiles.js';
import { clientAsNegotiated } from './client-as-negotiated.js';

describe("the person's client as its copies negotiated it (issue 50)", () => {
  const win11 = CLIENT_PROFILES['win11-24h2'];

  it("names the dialect and the protection the session had, not the profile's nominal ones", () => {
    expect(win11.label).toBe('Windows 11 24H2, SMB 3.1.1 (signing required)');
    expect(clientAsNegotiated(win11, { dialect: '2.0.2', signing: null, encryption: null })).toBe('Windows 11 24H2, SMB 2.0.2, unsigned');
    expect(clientAsNegotiated(win11, { dialect: '3.1.1', signing: 'AES-128-GMAC', encryption: null })).toBe(
      'Windows 11 24H2, SMB 3.1.1, signed (AES-128-GMAC)',
    );
    expect(clientAsNegotiated(win11, { dialect: '3.1.1', signing: null, encryption: 'AES-128-GCM' })).toBe('Windows 11 24H2, SMB 3.1.1, sealed (AES-128-GCM)');
  });

  it('keeps the name of a generation emulated over SMB 2, and of one whose copies did not run', () => {
    expect(clientAsNegotiated(CLIENT_PROFILES['xp-smb1'], { dialect: '2.1', signing: null, encryption: null })).toBe('Windows XP, SMB1');
    expect(clientAsNegotiated(win11, undefined)).toBe(win11.label);
  });
});
