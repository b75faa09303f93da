import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SambaServer } from './samba.js';

describe('SambaServer', () => {
  it('removes a share folder it made when smbd fails to start, and keeps one that existed', async () => {
    const parent = mkdtempSync(join(tmpdir(), 'pipefill-samba-test-'));
    try {
      const made = join(parent, 'made-for-it');
      // `false smbd ...` exits at once: a start that fails after the share folder was made.
      await expect(SambaServer.start({ sharePath: made, commandPrefix: ['false'] })).rejects.toThrow(/smbd exited at start/);
      expect(existsSync(made)).toBe(false);
      const existing = mkdtempSync(join(parent, 'existing-'));
      await expect(SambaServer.start({ sharePath: existing, commandPrefix: ['false'] })).rejects.toThrow(/smbd exited at start/);
      expect(existsSync(existing)).toBe(true);
    } finally {
      rmSync(parent, { recursive: true, force: true });
    }
  });
});
