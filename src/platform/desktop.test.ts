import { describe, expect, it } from 'vitest';
import { ELECTRON_RETRY_AFTER_MS, electronDownloadDecision } from './desktop.js';

describe("whether npm start fetches Electron's binary", () => {
  const desktop = { binaryPresent: false, display: true, env: {}, now: 1_000_000_000_000 };
  it('does on a desktop without it', () => {
    expect(electronDownloadDecision(desktop)).toEqual({ attempt: true });
    expect(electronDownloadDecision({ ...desktop, env: { ELECTRON_SKIP_BINARY_DOWNLOAD: '0' } })).toEqual({ attempt: true });
    expect(electronDownloadDecision({ ...desktop, lastFailureAt: desktop.now - ELECTRON_RETRY_AFTER_MS - 1 })).toEqual({ attempt: true });
  });

  it('does not where it has it, cannot show it, is told not to, is CI, or failed today; and says why', () => {
    const cases: Array<[Partial<typeof desktop> & { lastFailureAt?: number }, RegExp]> = [
      [{ binaryPresent: true }, /installed/],
      [{ display: false }, /no display/],
      [{ env: { CI: 'true' } }, /CI/],
      [{ env: { ELECTRON_SKIP_BINARY_DOWNLOAD: '1' } }, /ELECTRON_SKIP_BINARY_DOWNLOAD is set/],
      [{ lastFailureAt: desktop.now - 60_000 }, /failed less than a day ago/],
    ];
    for (const [change, why] of cases) {
      const decision = electronDownloadDecision({ ...desktop, ...change });
      expect(decision.attempt).toBe(false);
      if (!decision.attempt) expect(decision.why).toMatch(why);
    }
  });
});
