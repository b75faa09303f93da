// Targets Pipefill does not change itself from here: Windows (a PowerShell
// script that records the previous values and restores them with -Rollback,
// and a .reg file of the registry values), NetApp ONTAP and macOS (commands
// with their undo, to run by hand). Nothing here is run blind.

import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { knob } from '../advice/knobs.js';
import type { RecommendationOut } from '../contract/recommend.js';
import { PipefillError } from '../model/errors.js';
import type { ApplyOutcome, ApplyTarget, Change, Preview } from './plan.js';
import { replaceFile } from '../platform/safe-file.js';
import { trustedRecommendations } from './trusted.js';

const LANMAN_WORKSTATION = 'HKLM:\\SYSTEM\\CurrentControlSet\\Services\\LanmanWorkstation\\Parameters';
const LANMAN_SERVER = 'HKLM:\\SYSTEM\\CurrentControlSet\\Services\\LanmanServer\\Parameters';

/** How each Windows knob is read and written. */
type WindowsSetting =
  | { readonly kind: 'registry'; readonly path: string; readonly name: string }
  | { readonly kind: 'smb-server'; readonly property: string }
  | { readonly kind: 'smb-client'; readonly property: string }
  | { readonly kind: 'tcp-setting'; readonly property: string; readonly setting: string }
  | { readonly kind: 'netsh-autotuning' };

const WINDOWS_SETTINGS: Readonly<Record<string, WindowsSetting>> = {
  'windows-client.bandwidth-throttling': { kind: 'registry', path: LANMAN_WORKSTATION, name: 'DisableBandwidthThrottling' },
  'windows-client.large-mtu': { kind: 'registry', path: LANMAN_WORKSTATION, name: 'DisableLargeMtu' },
  'windows-client.file-info-cache': { kind: 'registry', path: LANMAN_WORKSTATION, name: 'FileInfoCacheEntriesMax' },
  'windows-client.directory-cache': { kind: 'registry', path: LANMAN_WORKSTATION, name: 'DirectoryCacheEntriesMax' },
  'windows-server.max-mpx': { kind: 'registry', path: LANMAN_SERVER, name: 'MaxMpxCt' },
  'windows-server.smb2-credits-max': { kind: 'smb-server', property: 'Smb2CreditsMax' },
  'windows-server.smb2-credits-min': { kind: 'smb-server', property: 'Smb2CreditsMin' },
  'windows-client.congestion-provider': { kind: 'tcp-setting', property: 'CongestionProvider', setting: 'InternetCustom' },
  'windows-client.ecn': { kind: 'tcp-setting', property: 'EcnCapability', setting: 'InternetCustom' },
  'windows-client.autotuninglevel': { kind: 'netsh-autotuning' },
  'windows-client.require-signing': { kind: 'smb-client', property: 'RequireSecuritySignature' },
  'windows-client.enable-multichannel': { kind: 'smb-client', property: 'EnableMultiChannel' },
  'windows-client.connection-count': { kind: 'smb-client', property: 'ConnectionCountPerRssNetworkInterface' },
  'windows-client.encryption-ciphers': { kind: 'smb-client', property: 'EncryptionCiphers' },
  'windows-server.require-signing': { kind: 'smb-server', property: 'RequireSecuritySignature' },
  'windows-server.encrypt-data': { kind: 'smb-server', property: 'EncryptData' },
  'windows-server.reject-unencrypted': { kind: 'smb-server', property: 'RejectUnencryptedAccess' },
  'windows-server.enable-multichannel': { kind: 'smb-server', property: 'EnableMultiChannel' },
  'windows-server.encryption-ciphers': { kind: 'smb-server', property: 'EncryptionCiphers' },
};

const psString = (text: string) => `'${text.replace(/'/g, "''")}'`;

/** How to record a setting's present value and put it back; setting it is the catalogue's own command (r.command). */
function psRecordAndUndo(r: RecommendationOut, setting: WindowsSetting): { record: string; undo: string } {
  const key = psString(r.id);
  switch (setting.kind) {
    case 'registry':
      return {
        record: `$previous[${key}] = Get-RegValue ${psString(setting.path)} ${psString(setting.name)}`,
        undo: `if ($null -eq $saved.${psString(r.id)}) { Remove-ItemProperty -Path ${psString(setting.path)} -Name ${psString(setting.name)} -ErrorAction SilentlyContinue } else { Set-ItemProperty -Path ${psString(setting.path)} -Name ${psString(setting.name)} -Type DWord -Value $saved.${psString(r.id)} }`,
      };
    case 'smb-server':
      return {
        record: `$previous[${key}] = (Get-SmbServerConfiguration).${setting.property}`,
        undo: `Set-SmbServerConfiguration -${setting.property} $saved.${psString(r.id)} -Force`,
      };
    case 'smb-client':
      return {
        record: `$previous[${key}] = (Get-SmbClientConfiguration).${setting.property}`,
        undo: `Set-SmbClientConfiguration -${setting.property} $saved.${psString(r.id)} -Force`,
      };
    case 'tcp-setting':
      return {
        record: `$previous[${key}] = [string](Get-NetTCPSetting -SettingName ${setting.setting}).${setting.property}`,
        undo: `Set-NetTCPSetting -SettingName ${setting.setting} -${setting.property} $saved.${psString(r.id)}`,
      };
    case 'netsh-autotuning':
      return {
        record: `$previous[${key}] = [string](Get-NetTCPSetting -SettingName Internet).AutoTuningLevelLocal`,
        undo: `netsh int tcp set global autotuninglevel=$($saved.${psString(r.id)}.ToLower())`,
      };
  }
}

/** The PowerShell script (pure). */
export function windowsScript(untrusted: readonly RecommendationOut[], generatedAt: string): string {
  const recommendations = trustedRecommendations(untrusted);
  const settings = recommendations.filter((r) => WINDOWS_SETTINGS[r.id]);
  const tools = recommendations.filter((r) => r.platform === 'copy-tool');
  const steps = settings.map((r) => ({ r, set: r.command, ...psRecordAndUndo(r, WINDOWS_SETTINGS[r.id] as WindowsSetting) }));
  return `# Pipefill: settings for this Windows machine (generated ${generatedAt}).
# Run from an elevated PowerShell. It records the current values in
# pipefill-rollback.json beside it first; undo with: .\\pipefill-apply.ps1 -Rollback
param([switch]$Rollback)
$ErrorActionPreference = 'Stop'
$backup = Join-Path $PSScriptRoot 'pipefill-rollback.json'
$principal = [Security.Principal.WindowsPrincipal][Security.Principal.WindowsIdentity]::GetCurrent()
if (-not $principal.IsInRole([Security.Principal.WindowsBuiltInRole]::Administrator)) { throw 'Run this script from an elevated PowerShell (Run as administrator).' }
function Get-RegValue([string]$Path, [string]$Name) {
  $item = Get-ItemProperty -Path $Path -Name $Name -ErrorAction SilentlyContinue
  if ($null -eq $item) { return $null }
  return $item.$Name
}

if ($Rollback) {
  if (-not (Test-Path $backup)) { throw "Nothing to roll back: $backup is missing." }
  $saved = Get-Content $backup -Raw | ConvertFrom-Json
${steps.map(({ undo }) => `  ${undo}`).join('\n')}
  Remove-Item $backup
  Write-Output 'Pipefill: previous values restored.'
  return
}

if (Test-Path $backup) { throw "An earlier run's backup is still at $backup: run with -Rollback first." }
$previous = @{}
${steps.map(({ record }) => record).join('\n')}
$previous | ConvertTo-Json | Set-Content -Path $backup -Encoding UTF8

try {
${steps.map(({ r, set }) => `  # ${r.why}\n  ${set}`).join('\n')}
} catch {
  Write-Warning "Pipefill: a setting failed ($_); restoring the previous values."
  & $PSCommandPath -Rollback
  throw
}
Write-Output 'Pipefill: applied. Some settings need a restart of the Workstation or Server service (or a reboot) to take effect.'
${tools.map((r) => `# Copy tool: ${r.why}\n# ${r.command}`).join('\n')}
`;
}

/** A .reg file of the registry values alone, for tools that import .reg (pure). */
export function windowsRegFile(untrusted: readonly RecommendationOut[]): string {
  const recommendations = trustedRecommendations(untrusted);
  const byKey = new Map<string, string[]>();
  for (const r of recommendations) {
    const setting = WINDOWS_SETTINGS[r.id];
    if (setting?.kind !== 'registry') continue;
    const key = setting.path.replace('HKLM:', 'HKEY_LOCAL_MACHINE');
    byKey.set(key, [...(byKey.get(key) ?? []), `"${setting.name}"=dword:${Number(r.value).toString(16).padStart(8, '0')}`]);
  }
  return `Windows Registry Editor Version 5.00\n\n${[...byKey].map(([key, values]) => `[${key}]\n${values.join('\n')}`).join('\n\n')}\n`;
}

/** ONTAP and macOS: the commands and their undo, by hand (pure). */
export function manualScript(target: 'ontap' | 'macos', untrusted: readonly RecommendationOut[], generatedAt: string): string {
  const mine = trustedRecommendations(untrusted).filter((r) => r.platform === target);
  // The catalogue's own command, with the value Pipefill took to be set.
  const undo = (r: RecommendationOut) => knob(r.id)?.command(r.current) ?? `(no command known for ${r.knob})`;
  // ONTAP's CLI and sh both read # as a comment.
  return `${target === 'macos' ? '#!/bin/sh\n' : ''}# Pipefill: ${target === 'ontap' ? 'NetApp ONTAP commands' : 'macOS settings'} (generated ${generatedAt}). Review, then run by hand.
${mine.map((r) => `# ${r.why}${r.caution ? `\n# Note: ${r.caution}` : ''}\n${r.command}`).join('\n\n')}

# To undo (back to the values Pipefill assumed were set: ${mine.map((r) => `${r.knob} ${String(r.current)}`).join(', ')}):
${mine.map((r) => `# ${undo(r)}`).join('\n')}
`;
}

const FILES: Readonly<Record<'windows' | 'ontap' | 'macos', readonly string[]>> = {
  windows: ['pipefill-apply.ps1', 'pipefill-apply.reg'],
  ontap: ['pipefill-ontap.txt'],
  macos: ['pipefill-macos.sh'],
};

export function exportTarget(
  target: Extract<ApplyTarget, 'windows' | 'ontap' | 'macos'>,
  untrusted: readonly RecommendationOut[],
  outDir: string,
  options: { dryRun?: boolean; now?: Date } = {},
): ApplyOutcome {
  const recommendations = trustedRecommendations(untrusted);
  const platforms: Readonly<Record<typeof target, readonly string[]>> = {
    windows: ['windows-client', 'windows-server', 'copy-tool'],
    ontap: ['ontap'],
    macos: ['macos'],
  };
  const mine = recommendations.filter((r) => platforms[target].includes(r.platform));
  const changes: Change[] = mine.map((r) => ({ knob: r.id, name: r.knob, from: String(r.current), to: String(r.value), command: r.command }));
  const files = FILES[target].map((name) => join(outDir, name));
  const preview: Preview = { target, where: outDir, changes, steps: files.map((file) => `write ${file}`) };
  if (mine.length === 0) return { preview, applied: false, verified: true, notes: [`Nothing for ${target} in these recommendations.`] };
  if (options.dryRun) return { preview, applied: false, verified: true, notes: ['Dry run: nothing was written.'] };
  mkdirSync(outDir, { recursive: true });
  const stamp = (options.now ?? new Date()).toISOString();
  if (target === 'windows') {
    replaceFile(files[0] ?? '', windowsScript(mine, stamp));
    replaceFile(files[1] ?? '', windowsRegFile(mine));
  } else {
    replaceFile(files[0] ?? '', manualScript(target, mine, stamp), { newMode: target === 'macos' ? 0o755 : 0o644 });
  }
  const how =
    target === 'windows'
      ? `Copy ${FILES.windows[0]} to the Windows machine and run it elevated; undo with -Rollback.`
      : `Review ${FILES[target][0]} and run its commands by hand.`;
  return { preview, applied: false, verified: false, written: files, notes: [how] };
}

/**
 * On Windows itself: runs the exported script (it refuses unless elevated,
 * records the previous values, and rolls back if a setting fails). Not
 * exercised by the tests, which run on Linux. RemoteSigned, not Bypass: the
 * script Pipefill just wrote is local and runs, anything marked as downloaded
 * does not, and a policy set by Group Policy still wins over this flag.
 */
export function runWindowsScript(script: string, rollback = false): ApplyOutcome['notes'] {
  const run = spawnSync('powershell.exe', ['-NoProfile', '-ExecutionPolicy', 'RemoteSigned', '-File', resolve(script), ...(rollback ? ['-Rollback'] : [])], {
    encoding: 'utf8',
    timeout: 120_000,
  });
  if (run.status !== 0)
    throw new PipefillError(
      'apply-failed',
      `The script failed: ${(run.stderr || run.stdout || run.error?.message || '').trim().split('\n').slice(-3).join(' ')}`,
      'Run Pipefill from an elevated prompt (Run as administrator); the script restores what it changed when a setting fails.',
    );
  return [run.stdout.trim()];
}
