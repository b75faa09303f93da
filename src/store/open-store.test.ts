import { chownSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openStore, parseStoreSpec } from './open-store.js';

const dir = mkdtempSync(join(tmpdir(), 'pipefill-open-store-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the default history store (issue 47)', () => {
  // Root's service with another user's data folder (sudo -E, PIPEFILL_DATA_DIR): SQLite's journal there could be a planted link.
  it.runIf(process.getuid?.() === 0)('is refused in a data folder another user owns, before SQLite writes anything there', async () => {
    const folder = mkdtempSync(join(dir, 'someone-'));
    chownSync(folder, 65534, 65534);
    const env = { PIPEFILL_DATA_DIR: `${folder}/` };
    await expect(openStore(parseStoreSpec(undefined, env), env)).rejects.toThrow(/not a folder of this user's own \(it belongs to user 65534\)/);
    expect(readdirSync(folder)).toEqual([]);
  });

  it("opens in a data folder of this user's own", async () => {
    const env = { PIPEFILL_DATA_DIR: join(dir, 'mine') };
    const store = await openStore(parseStoreSpec(undefined, env), env);
    await store.close();
    expect(readdirSync(join(dir, 'mine'))).toContain('history.sqlite');
  });
});
