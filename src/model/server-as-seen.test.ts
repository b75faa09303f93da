import { describe, expect, it } from 'vitest';
import { serverAsSeen } from './server-as-seen.js';
import { SERVER_PROFILES } from './server-profiles.js';

describe('the server as the copies found it', () => {
  it('drops the SMB 3.1.1 signing algorithms a copy listed ahead of the one the server chose, and keeps the chosen one', () => {
    const samba = SERVER_PROFILES.samba;
    expect(samba.security.signing).toEqual(['AES-128-GMAC', 'AES-128-CMAC', 'HMAC-SHA256']);
    const seen = serverAsSeen(samba, 'read', { signingChoice: { chosen: 'AES-128-CMAC', passedOver: ['AES-128-GMAC'] } });
    expect(seen.security.signing).toEqual(['AES-128-CMAC', 'HMAC-SHA256']);
    // A choice the profile does not list is still what the server offers.
    const odd = serverAsSeen({ ...samba, security: { ...samba.security, signing: ['AES-128-GMAC'] } }, 'read', {
      signingChoice: { chosen: 'HMAC-SHA256', passedOver: ['AES-128-GMAC', 'AES-128-CMAC'] },
    });
    expect(odd.security.signing).toEqual(['HMAC-SHA256']);
    // Nothing passed over: the profile's list as it is.
    expect(serverAsSeen(samba, 'read', { signingChoice: { chosen: 'AES-128-GMAC', passedOver: [] } }).security.signing).toEqual(samba.security.signing);
  });
});
