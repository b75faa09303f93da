// `report export` writes what the contract's exportDocument makes, the call
// the app's Export buttons make, so the two cannot drift apart.

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ApiInput, PipefillApi } from '../../contract/api.js';
import { createLocalApi } from '../../service/local-api.js';
import { reportCommand } from './report.js';

const fixture = join(import.meta.dirname, '..', '..', 'report', 'fixtures', 'lab-100mbit-40ms-credits16.json');

describe('report export', () => {
  const folders: string[] = [];
  afterEach(() => {
    for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
  });

  it("asks the contract's exportDocument for the file, and writes its bytes as they came", async () => {
    const local = createLocalApi({ shell: 'cli' });
    const asked: ApiInput<'exportDocument'>[] = [];
    const api: PipefillApi = {
      ...local,
      exportDocument: async (input, options) => {
        asked.push(input);
        return local.exportDocument(input, options);
      },
    };
    const folder = mkdtempSync(join(tmpdir(), 'pipefill-export-'));
    folders.push(folder);
    const out = join(folder, 'report.html');
    const said: string[] = [];
    const code = await reportCommand(['export', fixture, '--out', out, '--paper', 'a4'], api, {
      out: (text) => said.push(text),
      err: (text) => said.push(text),
    });
    expect(code).toBe(0);
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({ format: 'html', paper: 'a4' });
    const made = await local.exportDocument({ document: JSON.parse(readFileSync(fixture, 'utf8')), format: 'html', paper: 'a4' });
    expect(readFileSync(out)).toEqual(Buffer.from(made.base64, 'base64'));
    expect(said).toEqual([`Wrote ${out}`]);
  });
});
