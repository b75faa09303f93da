import { describe, expect, it } from 'vitest';
import { createLocalApi } from '../service/local-api.js';
import { ShareLoginSchema, shareTargetOf } from './share-login.js';
import { parseInput } from './validate.js';

describe('where and as whom', () => {
  const login = { share: '//fs1/data', user: 'anna', password: 'x' };

  it('refuses a share, user or domain with a control character or line break (they reach terminals, reports and the server)', () => {
    for (const field of ['share', 'user', 'domain'] as const) {
      for (const bad of ['a\u001b]0;x\u0007', 'a\nb', 'a\u009bb', 'a\u202eb']) {
        const parsed = ShareLoginSchema.safeParse({ ...login, [field]: bad });
        expect(parsed.success, `${field}: ${JSON.stringify(bad)}`).toBe(false);
      }
    }
    expect(ShareLoginSchema.safeParse({ ...login, user: 'x'.repeat(257) }).success).toBe(false);
    expect(ShareLoginSchema.safeParse({ ...login, domain: 'CORP', user: 'Jürgen Müller' }).success).toBe(true);
  });
});

describe("the share, parsed once at the contract's edge", () => {
  it('reaches a service as its text and its parts; the address the person gave goes beside them', () => {
    const parsed = ShareLoginSchema.parse({ share: '\\\\fs1:4450\\data\\team\\scratch', user: 'anna', password: 'x', address: '192.0.2.10' });
    expect(parsed.share).toEqual({ text: '\\\\fs1:4450\\data\\team\\scratch', path: { host: 'fs1', port: 4450, share: 'data', folder: 'team/scratch' } });
    expect(shareTargetOf(parsed)).toEqual({ host: 'fs1', port: 4450, share: 'data', folder: 'team/scratch', address: '192.0.2.10' });
    expect(shareTargetOf(ShareLoginSchema.parse({ share: '//fs1/data', user: 'anna', password: 'x' }))).toEqual({ host: 'fs1', port: 445, share: 'data' });
  });

  it('refuses what is no share path as the share field, with what a share path looks like', () => {
    expect(() => parseInput(ShareLoginSchema, { share: 'fs1/data', user: 'anna', password: 'x' }, 'assess input')).toThrow(
      /^Invalid assess input: share: "fs1\/data" is not a share path\. Expected a share path such as/,
    );
    expect(() => parseInput(ShareLoginSchema, { share: '//fs1', user: 'anna', password: 'x' }, 'assess input')).toThrow(/share: "\/\/fs1" names no share/);
  });

  it("refuses a service's call with a bad share before it reaches anything", async () => {
    const api = createLocalApi();
    await expect(api.probe({ share: '//fs1:99999/data', user: 'anna', password: 'x' })).rejects.toThrow(/share: Port 99999 is out of range/);
  });
});
