// The services' side of the contract's apply call, on files of a temporary
// folder: a preview writes nothing, an apply backs up and changes only the
// file named, a rollback restores it byte for byte; input that names no file,
// or a setting the catalogue does not hold, is refused before anything.

import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { recommendFromInput } from '../contract/recommend.js';
import { runApply } from './run-apply.js';

// What the advice gives Windows on a long path: the settings of the client and the server, and the copy tool's.
const windows = recommendFromInput({ bandwidth: '155mbit', rtt: '75ms', client: 'win10-smb3', server: 'win2012plus' }).recommendations;
const [first] = windows;
if (!first) throw new Error('the advice named nothing to change on a 155 Mb/s, 75 ms path');

describe('apply through the contract', () => {
  const folders: string[] = [];
  const folder = () => {
    const made = mkdtempSync(join(tmpdir(), 'pipefill-run-apply-'));
    folders.push(made);
    return made;
  };
  afterEach(() => {
    for (const made of folders.splice(0)) rmSync(made, { recursive: true, force: true });
  });

  it('previews a script for Windows without writing it, and writes it when applied', () => {
    const out = folder();
    const preview = runApply({ target: 'windows', action: 'preview', recommendations: windows, outDir: out });
    expect(preview.applied).toBe(false);
    expect(preview.preview.changes.length).toBeGreaterThan(0);
    expect(readdirSync(out)).toEqual([]);
    const written = runApply({ target: 'windows', action: 'apply', recommendations: windows, outDir: out });
    expect(written.written?.length).toBeGreaterThan(0);
    expect(readdirSync(out).length).toBeGreaterThan(0);
  });

  it('refuses a samba apply that names no smb.conf, a rollback of a script, and a setting the catalogue does not hold', () => {
    expect(() => runApply({ target: 'samba', action: 'preview', recommendations: [first] })).toThrow(/--smb-conf/);
    expect(() => runApply({ target: 'windows', action: 'rollback' })).toThrow(/rollback works for linux, samba and fstab/);
    const planted = { ...first, id: 'samba.smb2-max-credits', platform: 'samba' as const, knob: 'smb2 max credits', value: '128\n[evil]\npath = /' };
    const conf = join(folder(), 'smb.conf');
    writeFileSync(conf, '[global]\n');
    expect(() => runApply({ target: 'samba', action: 'preview', recommendations: [planted], smbConf: conf })).toThrow(/value must be a whole number/);
    expect(readFileSync(conf, 'utf8')).toBe('[global]\n');
  });
});
