import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { recommendFromInput } from '../contract/recommend.js';
import { exportTarget, manualScript, windowsRegFile, windowsScript } from './export-scripts.js';

// A 2008 RTM server whose credits were cut to 16, behind a Windows 7 client's throttle.
const windows = recommendFromInput({
  bandwidth: '1gbit',
  rtt: '100ms',
  client: 'win7-smb2',
  server: 'win2008-rtm',
  current: { 'windows-server.smb2-credits-max': 16 },
}).recommendations;
const ontap = recommendFromInput({ bandwidth: '155mbit', rtt: '75ms', client: 'xp-smb1', server: 'netapp-7mode-default' }).recommendations;

describe('exported scripts', () => {
  it('records the previous Windows values before setting them, and restores them with -Rollback', () => {
    expect(windows.map((r) => r.id)).toEqual(expect.arrayContaining(['windows-server.smb2-credits-max']));
    const script = windowsScript(windows, '2026-11-22T00:00:00.000Z');
    expect(script).toMatch(/param\(\[switch\]\$Rollback\)/);
    expect(script).toMatch(/IsInRole\(\[Security\.Principal\.WindowsBuiltInRole\]::Administrator\)/);
    const record = script.indexOf("$previous['windows-server.smb2-credits-max'] = (Get-SmbServerConfiguration).Smb2CreditsMax");
    // The undo (in the -Rollback branch) comes first in the file; the set comes after the record.
    const set = script.indexOf('Set-SmbServerConfiguration -Smb2CreditsMax', record);
    expect(record).toBeGreaterThan(0);
    expect(set).toBeGreaterThan(record);
    expect(script).toContain("Set-SmbServerConfiguration -Smb2CreditsMax $saved.'windows-server.smb2-credits-max' -Force");
  });

  it('writes registry values as a .reg file', () => {
    const vista = recommendFromInput({ bandwidth: '1gbit', rtt: '100ms', client: 'vista-smb2', server: 'win2008-rtm' }).recommendations;
    const throttle = vista.find((r) => r.id === 'windows-client.bandwidth-throttling');
    expect(throttle).toBeDefined();
    if (!throttle) return;
    const reg = windowsRegFile([throttle, { ...throttle, id: 'windows-client.large-mtu', value: 0 }]);
    expect(reg).toBe(
      'Windows Registry Editor Version 5.00\n\n[HKEY_LOCAL_MACHINE\\SYSTEM\\CurrentControlSet\\Services\\LanmanWorkstation\\Parameters]\n"DisableBandwidthThrottling"=dword:00000001\n"DisableLargeMtu"=dword:00000000\n',
    );
  });

  it('gives ONTAP commands with their undo, and says a CIFS restart is needed', () => {
    const text = manualScript('ontap', ontap, '2026-11-22T00:00:00.000Z');
    expect(text).toContain('options cifs.tcp_window_size 2096560');
    expect(text).toContain('# options cifs.tcp_window_size 17520');
    expect(text).toMatch(/CIFS restart/);
  });

  it('writes the files only when not a dry run', () => {
    const dir = mkdtempSync(join(tmpdir(), 'pipefill-export-'));
    try {
      expect(exportTarget('windows', windows, dir, { dryRun: true }).notes).toEqual(['Dry run: nothing was written.']);
      expect(readdirSync(dir)).toEqual([]);
      const outcome = exportTarget('windows', windows, dir);
      expect(readdirSync(dir).sort()).toEqual(['pipefill-apply.ps1', 'pipefill-apply.reg']);
      expect(outcome.preview.changes.length).toBe(windows.length);
      expect(readFileSync(join(dir, 'pipefill-apply.ps1'), 'utf8')).toContain('pipefill-rollback.json');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
