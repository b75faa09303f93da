import { describe, expect, it } from 'vitest';
import { protectionVerdict } from './protection-check.js';

const rates = { plainRate: '72.5 Mb/s', signedRate: '64.8 Mb/s' };

describe("the signing check's verdict", () => {
  it('puts a slower signed read to the path where the CPU cost of the algorithm does not explain it', () => {
    // The demo's 100 Mb/s link: signed with AES-128-GMAC, 12% slower, where the model gives GMAC's cost there as nil.
    const seen = protectionVerdict({ algorithm: 'AES-128-GMAC', measuredRatio: 1.12, expectedRatio: 1.0001, ...rates });
    expect(seen.verdict).toBe('path');
    expect(seen.sentence).toBe(
      'Signed, this read took 12% longer (unsigned 72.5 Mb/s, signed 64.8 Mb/s), but the CPU cost of AES-128-GMAC here comes to 0%: more than signing explains, so the two reads differ as reads through this path do, not by the protocol.',
    );
  });

  it("names the protocol's cost where the model's CPU cost accounts for most of it, and proposes only what the copy lacks", () => {
    const cmac = protectionVerdict({ algorithm: 'AES-128-CMAC', measuredRatio: 1.6, expectedRatio: 1.5, ...rates });
    expect(cmac.verdict).toBe('protocol');
    expect(cmac.sentence).toMatch(/costs this copy 60% .*the model expects 50% .*prefer AES-GMAC \(SMB 3\.1\.1\) or more connections \(multichannel\)/);
    const gmac = protectionVerdict({ algorithm: 'AES-128-GMAC', measuredRatio: 1.3, expectedRatio: 1.25, ...rates });
    expect(gmac.verdict).toBe('protocol');
    expect(gmac.sentence).toMatch(/prefer more connections \(multichannel\) where the CPU binds\.$/);
    expect(gmac.sentence).not.toMatch(/prefer AES-GMAC/);
  });

  it('says nothing measurable below a tenth', () => {
    expect(protectionVerdict({ algorithm: 'AES-128-GMAC', measuredRatio: 1.006, expectedRatio: 1, ...rates })).toMatchObject({ verdict: 'path' });
    expect(protectionVerdict({ algorithm: 'AES-128-GMAC', measuredRatio: 1.006, expectedRatio: 1, ...rates }).sentence).toMatch(
      /costs this copy nothing measurable/,
    );
  });
});
