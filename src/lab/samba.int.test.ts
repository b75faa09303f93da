import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createServer } from 'node:net';
import { freePort, preferredOrFreePort, SambaServer } from './samba.js';

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

describe('the port a server comes back on', () => {
  it('is the one it had when that is free, and another when something holds it', async () => {
    const port = await freePort();
    await expect(preferredOrFreePort(port)).resolves.toBe(port);
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(port, '127.0.0.1', resolve));
    try {
      const other = await preferredOrFreePort(port);
      expect(other).not.toBe(port);
      expect(other).toBeGreaterThan(0);
    } finally {
      await new Promise((resolve) => holder.close(resolve));
    }
  });
});
