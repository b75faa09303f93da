import { describe, expect, it } from 'vitest';
import { inputErrorText } from '../test-support/input-error.js';
import { filesInCopyOrder, leadingPart, parseWorkload, seededRandom, TR3869_DIRSET, tr3869DirectorySet } from './workloads.js';

describe('tr3869DirectorySet', () => {
  const set = tr3869DirectorySet();

  it('holds 300 files in 14 directories, 1 GiB in all, as TR-3869 describes', () => {
    expect(set.files).toHaveLength(300);
    expect(set.directories).toHaveLength(14);
    expect(set.files.reduce((sum, file) => sum + file.bytes, 0)).toBe(2 ** 30);
    expect(set.totalBytes).toBe(2 ** 30);
  });

  it('keeps every file within 50 KB to 5 MB and spans the range', () => {
    const sizes = set.files.map((file) => file.bytes);
    expect(Math.min(...sizes)).toBe(TR3869_DIRSET.minFileBytes);
    expect(Math.max(...sizes)).toBe(TR3869_DIRSET.maxFileBytes);
    expect(new Set(sizes).size).toBeGreaterThan(250);
  });

  it('is the same tree every time, with unique paths inside its directories', () => {
    expect(tr3869DirectorySet()).toEqual(set);
    const paths = set.files.map((file) => file.path);
    expect(new Set(paths).size).toBe(paths.length);
    for (const path of paths) expect(set.directories).toContain(path.split('/')[0]);
    expect(paths.filter((path) => path.endsWith('.ppt')).length).toBe(100);
  });

  it('scales the file count and total, keeping the size mix', () => {
    const small = tr3869DirectorySet(0.05);
    expect(small.files).toHaveLength(15);
    expect(small.directories).toHaveLength(1);
    expect(small.totalBytes).toBe(Math.round(2 ** 30 * (15 / 300)));
    expect(small.files.reduce((sum, file) => sum + file.bytes, 0)).toBe(small.totalBytes);
  });

  it('refuses scales that cannot hold the size range', () => {
    expect(() => tr3869DirectorySet(0)).toThrow(/out of range/);
    expect(() => tr3869DirectorySet(3)).toThrow(/out of range/);
  });
});

describe('parseWorkload', () => {
  it('reads file and directory-set specs', () => {
    expect(parseWorkload('file:100MB').totalBytes).toBe(100_000_000);
    expect(parseWorkload('file:32MiB').files[0]?.bytes).toBe(32 * 2 ** 20);
    expect(parseWorkload('tr3869-dirset').files).toHaveLength(300);
    expect(parseWorkload('tr3869-dirset:0.1').files).toHaveLength(30);
  });
  it.each(['file', 'file:', 'file:big', 'dirset', 'tr3869-dirset:x', 'tr3869-dirset:', 'file:1MB:2'])('refuses %j and names both forms', (spec) => {
    expect(inputErrorText(() => parseWorkload(spec))).toMatch(/file:<size>.*tr3869-dirset\[:scale\]|Cannot read/s);
  });
});

describe('seededRandom', () => {
  it('is deterministic and uniform enough to draw sizes from', () => {
    const a = seededRandom(7);
    const b = seededRandom(7);
    const draws = Array.from({ length: 10_000 }, () => a());
    expect(Array.from({ length: 5 }, () => b())).toEqual(draws.slice(0, 5));
    const mean = draws.reduce((sum, x) => sum + x, 0) / draws.length;
    expect(mean).toBeGreaterThan(0.48);
    expect(mean).toBeLessThan(0.52);
    expect(Math.min(...draws)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...draws)).toBeLessThan(1);
  });
});

describe('filesInCopyOrder and leadingPart', () => {
  const set = parseWorkload('tr3869-dirset');
  it('walks the set folder by folder, each folder in workload order', () => {
    const ordered = filesInCopyOrder(set);
    expect(ordered).toHaveLength(set.files.length);
    expect(new Set(ordered.map((file) => file.path))).toEqual(new Set(set.files.map((file) => file.path)));
    // 300 files in 14 folders, dealt in turn: dir01 holds the 1st, 15th, 29th, ... 295th (22 files).
    expect(ordered.slice(0, 2).map((file) => file.path)).toEqual(['dir01/file001.xls', 'dir01/file015.ppt']);
    expect(ordered[22]?.path).toBe('dir02/file002.doc');
  });
  it('is the first files a stopped copy moved, the last cut to the bytes moved, and only their folders', () => {
    const ordered = filesInCopyOrder(set);
    const dir01 = ordered.slice(0, 22).reduce((sum, file) => sum + file.bytes, 0);
    const part = leadingPart(set, 23, dir01 + 1000);
    expect(part.kind).toBe('dirset');
    expect(part.files.map((file) => file.bytes)).toEqual([...ordered.slice(0, 22).map((file) => file.bytes), 1000]);
    expect(part.totalBytes).toBe(dir01 + 1000);
    expect(part.directories).toEqual(['dir01', 'dir02']);
    expect(leadingPart(set, 3, 10).directories).toEqual(['dir01']);
    // A file opened after the bytes ran out keeps its round trips, with no bytes.
    expect(leadingPart(set, 2, 10).files.map((file) => file.bytes)).toEqual([10, 0]);
  });
  it.each([
    [0, 100],
    [1.5, 100],
    [2, 0],
  ])('refuses %d files holding %d bytes', (files, bytes) => {
    expect(() => leadingPart(set, files, bytes)).toThrow(/leading part/);
  });
});
