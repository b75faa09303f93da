import { describe, expect, it } from 'vitest';
import { readsOutranLoss, serverAsSeen, withServerCongestion } from './server-as-seen.js';
import { idleRestartRtts } from './congestion.js';
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

  it("signs at its own rates on this machine where its stack showed them, else at this machine's", () => {
    const here = { 'AES-128-GMAC': { protect: 11e9, check: 11e9 } };
    const server = { 'AES-128-GMAC': { protect: 7e9, check: 7e9 } };
    const samba = SERVER_PROFILES.samba;
    expect(serverAsSeen(samba, 'read', { cryptoOnThisMachine: here }).crypto.rates).toBe(here);
    expect(serverAsSeen(samba, 'read', { cryptoOnThisMachine: here, serverCryptoOnThisMachine: server }).crypto.rates).toBe(server);
    expect(serverAsSeen(samba, 'read', {}).crypto).toBe(samba.crypto);
  });
});

describe("the server's sender as its reads showed it", () => {
  // The lab's BBR Samba through 1% loss at 40 ms: an 8 MiB read in 1.85 s, where CUBIC's model gave 18.65 s.
  const bbrRead = { measuredSeconds: 1.85, outOfOrderPackets: 2432, lossesMet: 58, lossBasedSeconds: 18.65, rateBasedSeconds: 2.1 };

  it('takes a read that met the loss and ran at a rate-based pace as a rate-based sender', () => {
    expect(readsOutranLoss(bbrRead)).toBe(true);
  });

  it('leaves a read that met no loss, ran near the loss-based model, or is nearer it than the rate-based one', () => {
    expect(readsOutranLoss({ ...bbrRead, outOfOrderPackets: 0 })).toBe(false);
    expect(readsOutranLoss({ ...bbrRead, outOfOrderPackets: undefined })).toBe(false);
    // CUBIC's short head start: a read at 0.6 of the loss-based model is not past what a loss-based sender does.
    expect(readsOutranLoss({ ...bbrRead, measuredSeconds: 0.6 * 18.65 })).toBe(false);
    // Fast, but slower still than BBR would be by far: nearer the loss-based model (in ratio).
    expect(readsOutranLoss({ ...bbrRead, measuredSeconds: 9, rateBasedSeconds: 1 })).toBe(false);
    expect(readsOutranLoss({ ...bbrRead, measuredSeconds: 0 })).toBe(false);
    // Too few packets to have met the losses that hold a loss-based sender: CUBIC's 1 MiB read through 1.4%.
    expect(readsOutranLoss({ ...bbrRead, lossesMet: 10 })).toBe(false);
  });

  it('sends the reads as BBR does, its restart from idle with it, where the reads said so; nothing else changes', () => {
    const samba = SERVER_PROFILES.samba;
    const seen = serverAsSeen(samba, 'read', { serverSender: 'rate-based' });
    expect(seen.tcp).toEqual({ ...samba.tcp, congestion: 'bbr', idleRestartRtts: idleRestartRtts('bbr') });
    expect({ ...seen, tcp: samba.tcp }).toEqual(samba);
    expect(serverAsSeen(samba, 'read', {}).tcp).toEqual(samba.tcp);
    expect(withServerCongestion(samba, undefined)).toBe(samba);
  });
});
