// What a test copy is called where a person reads it: the client generation
// in a few words, the workload as "large file (15 MiB)" or "small files (10
// files, 36 MB)" instead of its spec (`tr3869-dirset:0.033`), and a copy's
// rate in the unit copy dialogs show beside the one links are sold in. Every
// view, chart and report uses these, so the same copy has one name. Pure.

import type { ClientProfileId } from '../model/client-profiles.js';
import { CLIENT_PROFILES } from '../model/client-profiles.js';
import { parseWorkload } from '../model/workloads.js';
import { effectText } from '../model/effect-workloads.js';
import { formatBinaryBytes, formatBytes, formatByteRate, formatRate } from '../model/units.js';
import { PROJECTED_SERIES_SUFFIX, STEADY_FILE_SERIES } from '../contract/history.js';

/** Short names for charts and table cells; the profiles' own labels are the long form. */
const CLIENT_SHORT: Readonly<Record<ClientProfileId, string>> = {
  'xp-smb1': 'Windows XP',
  'win7-smb1': 'Windows 7 (SMB1)',
  'vista-smb2': 'Windows Vista',
  'win7-smb2': 'Windows 7',
  'win10-smb3': 'Windows 10/11',
  'win11-24h2': 'Windows 11 24H2',
  'linux-cifs': 'Linux cp',
  'pipefill-max': 'Best pipeline',
};

const isClient = (id: string): id is ClientProfileId => Object.hasOwn(CLIENT_SHORT, id);

/** "Windows 11 24H2"; an id this Pipefill does not know (a newer report's) as it is. */
export function clientShortLabel(id: string): string {
  return isClient(id) ? CLIENT_SHORT[id] : id;
}

/** The profile's full label ("Windows 11 24H2, SMB 3.1.1 (signing required)"); an unknown id as it is. */
export function clientLongLabel(id: string): string {
  return isClient(id) ? CLIENT_PROFILES[id].label : id;
}

/** "large file" or "small files": what kind of copy a workload spec is. */
export function workloadKindText(spec: string): string {
  // 'file:' with no size is the kind alone (history's generation keys carry no size).
  return spec.startsWith('file:') ? 'large file' : spec.startsWith('tr3869-dirset') ? 'small files' : spec;
}

/** "large file (15 MiB)", "small files (10 files in 1 folder, 36 MB)"; a spec this Pipefill cannot read, as it is. */
export function workloadText(spec: string): string {
  let workload;
  try {
    workload = parseWorkload(spec);
  } catch {
    return spec;
  }
  if (workload.kind === 'file') {
    // The size as the spec gives it ("100 MB", "15 MiB"): 100 MB shown as "95.4 MiB" reads as a different file.
    const typed = /^file:(\d+(?:\.\d+)?)\s*([KMGT]i?B)$/i.exec(spec.trim());
    return `large file (${typed ? `${typed[1]} ${typed[2]}` : formatBinaryBytes(workload.totalBytes)})`;
  }
  const files = workload.files.length;
  const folders = workload.directories.length;
  return `small files (${files} file${files === 1 ? '' : 's'} in ${folders} folder${folders === 1 ? '' : 's'}, ${formatBytes(workload.totalBytes)})`;
}

/** "Windows 11 24H2, large file write": one test copy, short enough for a chart's axis. */
export function testShortLabel(test: { readonly profile: string; readonly op: string; readonly workload: string }): string {
  return `${clientShortLabel(test.profile)}, ${workloadKindText(test.workload)} ${test.op}`;
}

/** "Windows 11 24H2, SMB 3.1.1 (signing required): write, small files (10 files in 1 folder, 36 MB)". */
export function testLongLabel(test: { readonly profile: string; readonly op: string; readonly workload: string }): string {
  return `${clientLongLabel(test.profile)}: ${test.op}, ${workloadText(test.workload)}`;
}

/** A copy's rate as Explorer and robocopy show it, then as links are sold: "5.3 MB/s (42.4 Mb/s)". */
export function copyRateText(bitsPerSecond: number): string {
  if (!Number.isFinite(bitsPerSecond) || bitsPerSecond < 0) return 'unknown';
  return `${formatByteRate(bitsPerSecond / 8)} (${formatRate(bitsPerSecond)})`;
}

/** A history generation key (`win11-24h2 write dirset`, src/contract/history.ts) as "Windows 11 24H2, small files write". */
export function generationKeyLabel(key: string): string {
  const [profile = key, op = '', kind = '', sample] = key.split(' ');
  const label = testShortLabel({ profile, op, workload: kind === 'dirset' ? 'tr3869-dirset' : kind === 'file' ? 'file:' : kind });
  // A trend's series is one sample size (siteTrend): say which, so a --quick run's line is not read as the default's;
  // a file's rate once under way is one series whatever the file's size.
  if (sample === undefined) return label;
  if (sample === STEADY_FILE_SERIES) return `${label}, once under way`;
  // A quick run's folder, projected from its file copy: a series of its own, said so.
  const projected = sample.endsWith(PROJECTED_SERIES_SUFFIX);
  const spec = projected ? sample.slice(0, -PROJECTED_SERIES_SUFFIX.length) : sample;
  return `${label}, ${workloadText(spec).replace(/^(large file|small files) \((.*)\)$/, '$2')}${projected ? ', projected from the file copy' : ''}`;
}

/**
 * A recommendation's test ("read file:1GB", "write tr3869-dirset") as a
 * person reads it: "reading a 1 GB file", "writing the 1 GB folder of 300
 * small files" (as the verdict says them); another workload by its size
 * ("reading a large file (100 MB)"); a label of another shape, as it is.
 */
export function adviceTestText(label: string): string {
  const match = /^(read|write) (\S+)$/.exec(label.trim());
  if (!match) return label;
  const [, op, spec = ''] = match;
  // The copies every effect is told for, in the verdict's own words: one phrase for one figure everywhere.
  const effect = effectText(label);
  if (effect) return effect;
  const what = workloadText(spec);
  if (what === spec) return label;
  return `${op === 'read' ? 'reading' : 'writing'} ${what.startsWith('large file') ? `a ${what}` : what}`;
}

/**
 * What every change together does to the copies a person knows (the
 * advice's `combined` for them, where it helps), as "writing a 1 GB file"
 * with the model's time before and after: the What to change tables' last row.
 */
export function togetherEffects(advice: { readonly combined: readonly { readonly test: string; readonly before: number; readonly after: number }[] }) {
  return advice.combined.flatMap((entry) => {
    const text = effectText(entry.test);
    return text && Number.isFinite(entry.after) && entry.after < entry.before ? [{ text, before: entry.before, after: entry.after }] : [];
  });
}
