// What a test copy moves. Two kinds, as TR-3869 measured them: one large file,
// and the "1 GB directory set" of office documents.

import { PipefillInputError } from './errors.js';
import { formatBytes, parseSizeBytes } from './units.js';

export interface WorkloadFile {
  /** Path relative to the workload root, `/`-separated. */
  readonly path: string;
  readonly bytes: number;
}

export interface Workload {
  /** The spec it was parsed from, normalised: `file:100MB`, `tr3869-dirset`, `tr3869-dirset:0.05`. */
  readonly spec: string;
  readonly kind: 'file' | 'dirset';
  readonly directories: readonly string[];
  readonly files: readonly WorkloadFile[];
  readonly totalBytes: number;
}

// TR-3869's directory set: "300 files (.xls/.doc/.ppt) of 50 KB to 5 MB in
// 13-14 directories", 1 GB in all (TR-3869, its test method).
// The paper gives no size list, so the generator draws sizes from a skewed
// distribution whose mean meets the stated total (1 GiB / 300 = 3.58 MB, well
// above the 2.5 MB midpoint: most files sit near the top of the range).
export const TR3869_DIRSET = {
  files: 300,
  directories: 14,
  totalBytes: 2 ** 30,
  minFileBytes: 50_000,
  maxFileBytes: 5_000_000,
  extensions: ['xls', 'doc', 'ppt'],
  seed: 0x3869,
} as const;

/** mulberry32: a tiny, well-mixed 32-bit PRNG, so every run and every platform makes the same tree. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

/**
 * File sizes in [min, max] that add up to exactly `total`. Sizes are drawn as
 * min + (max - min) * u^skew, then nudged toward the total within the bounds.
 */
function drawSizes(count: number, total: number, min: number, max: number, random: () => number): number[] {
  if (total < count * min || total > count * max) {
    throw new PipefillInputError(
      `A directory set of ${count} files cannot hold ${formatBytes(total)} with files of ${formatBytes(min)} to ${formatBytes(max)}.`,
      'Choose a scale between 0.004 and 1.4.',
    );
  }
  const mean = total / count;
  // Mean of u^k over [0,1] is 1/(k+1); pick k so the drawn mean is the target mean.
  const skew = Math.max(0.05, (max - min) / (mean - min) - 1);
  const sizes = Array.from({ length: count }, () => Math.round(min + (max - min) * random() ** skew));
  // The paper names the range's ends, so the set holds one file at each end
  // (when it has room for them); the nudging below leaves those two alone.
  const pinned = count >= 3 ? 2 : 0;
  if (pinned) {
    sizes[0] = min;
    sizes[1] = max;
  }
  // Spread the remaining difference over the files that still have room; each
  // pass either closes the gap or pins files at a bound, so it ends in <= count passes.
  for (let pass = 0; pass <= count; pass++) {
    const gap = total - sizes.reduce((sum, size) => sum + size, 0);
    if (gap === 0) break;
    const movable = sizes.map((size, index) => ({ size, index })).filter(({ size, index }) => index >= pinned && (gap > 0 ? size < max : size > min));
    const share = Math.trunc(gap / movable.length) || Math.sign(gap);
    let left = gap;
    for (const { index } of movable) {
      if (left === 0) break;
      const current = sizes[index] ?? min;
      const step = gap > 0 ? Math.min(share, left, max - current) : Math.max(share, left, min - current);
      sizes[index] = current + step;
      left -= step;
    }
  }
  return sizes;
}

/** The TR-3869 directory set, or a scaled copy: `scale` multiplies the file count and the total, keeping the size mix. */
export function tr3869DirectorySet(scale = 1): Workload {
  if (!(scale > 0 && scale <= 1.4)) {
    throw new PipefillInputError(`Directory-set scale ${scale} is out of range.`, 'Use a scale above 0 and at most 1.4, e.g. tr3869-dirset:0.05.');
  }
  const spec = scale === 1 ? 'tr3869-dirset' : `tr3869-dirset:${scale}`;
  const d = TR3869_DIRSET;
  const fileCount = Math.max(1, Math.round(d.files * scale));
  const directoryCount = Math.max(1, Math.min(fileCount, Math.round(d.directories * scale)));
  const totalBytes = Math.round(d.totalBytes * (fileCount / d.files));
  const random = seededRandom(d.seed);
  const sizes = drawSizes(fileCount, totalBytes, d.minFileBytes, d.maxFileBytes, random);
  const directories = Array.from({ length: directoryCount }, (_, i) => `dir${String(i + 1).padStart(2, '0')}`);
  const files = sizes.map((bytes, i) => {
    const extension = d.extensions[i % d.extensions.length] ?? 'doc';
    const directory = directories[i % directoryCount] ?? 'dir01';
    return { path: `${directory}/file${String(i + 1).padStart(3, '0')}.${extension}`, bytes };
  });
  return { spec, kind: 'dirset', directories, files, totalBytes };
}

export function singleFile(bytes: number, spec: string): Workload {
  return { spec, kind: 'file', directories: [], files: [{ path: 'pipefill-test.bin', bytes }], totalBytes: bytes };
}

const WORKLOAD_EXPECTED = 'file:<size> (e.g. file:100MB, file:32MiB) or tr3869-dirset[:scale] (e.g. tr3869-dirset:0.05)';

/** Parses `file:100MB`, `tr3869-dirset`, `tr3869-dirset:0.05`. */
export function parseWorkload(spec: string): Workload {
  const text = spec.trim();
  const [kind, argument, ...rest] = text.split(':');
  if (kind === 'file' && argument && rest.length === 0) return singleFile(parseSizeBytes(argument), `file:${argument}`);
  if (kind === 'tr3869-dirset' && rest.length === 0) {
    if (argument === undefined) return tr3869DirectorySet(1);
    const scale = Number(argument);
    if (argument.trim() !== '' && Number.isFinite(scale)) return tr3869DirectorySet(scale);
  }
  throw new PipefillInputError(`Unknown workload ${JSON.stringify(spec)}.`, `Expected ${WORKLOAD_EXPECTED}.`);
}

/** A file's folder within the workload ('' for one at its root). */
export const folderOf = (path: string): string => (path.includes('/') ? path.slice(0, path.lastIndexOf('/')) : '');

/**
 * The workload's files in the order a copy moves them: folder by folder (the
 * folders in the order their first file appears), each folder's files in
 * workload order, as Explorer and robocopy walk a tree.
 */
export function filesInCopyOrder(workload: Pick<Workload, 'files'>): WorkloadFile[] {
  const byFolder = new Map<string, WorkloadFile[]>();
  for (const file of workload.files) byFolder.set(folderOf(file.path), [...(byFolder.get(folderOf(file.path)) ?? []), file]);
  return [...byFolder.values()].flat();
}

/**
 * What a copy stopped part-way through a workload moved: its first `files`
 * files in copy order, the last cut so that they hold `bytes` in all (a file
 * opened after the bytes ran out holds none), and
 * the folders they sit in. The model's time for it is set against the
 * copy's measured time (a budgeted run's directory set, src/assess/assess.ts).
 */
export function leadingPart(workload: Workload, files: number, bytes: number): Workload {
  if (!Number.isInteger(files) || files < 1 || !(bytes > 0)) {
    throw new PipefillInputError(`A workload's leading part needs a file and some bytes (got ${files} files, ${bytes} bytes).`, 'Report this as a bug.');
  }
  const ordered = filesInCopyOrder(workload).slice(0, files);
  let left = bytes;
  const moved = ordered.map((file) => {
    const taken = Math.min(file.bytes, Math.max(0, left));
    left -= taken;
    return { path: file.path, bytes: taken };
  });
  // A file opened whose data had not begun (the slot ran out) keeps its round trips: it stays, with no bytes.
  const kept = moved;
  const folders = new Set(kept.map((file) => folderOf(file.path)));
  return {
    spec: `${workload.spec} (first ${kept.length} of ${workload.files.length} files)`,
    kind: workload.kind,
    directories: workload.directories.filter((directory) => folders.has(directory)),
    files: kept,
    totalBytes: kept.reduce((sum, file) => sum + file.bytes, 0),
  };
}
