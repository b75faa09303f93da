import { describe, expect, it } from 'vitest';
import { ShareLoginSchema } from './share-login.js';

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
