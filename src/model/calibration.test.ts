// Calibration: the model against TR-3869's Robocopy times at 32 ms
// (src/model/reference/tr3869-robocopy-32ms.json: 3 clients x 4 links x 4 tests).
//
// The values fitted to this data, and only these, are:
//   - XP round trips per request: read 1.56 (from TR-3869's ~20 ops/s, a rate,
//     not a time), write 1.1;
//   - metadata round trips per file: SMB1 read 9 / write 19, SMB2 read 3 / write 18.
// Everything else is a published or protocol figure: request sizes, pipeline
// depths, credits, TCP windows, initial windows, header overheads. Each scales
// with RTT and bandwidth by construction (round trips x RTT, bytes / rate).
//
// Robocopy reports whole seconds. The OC-3 read of 100 MB is given as 5 s,
// below the 5.14 s the bytes alone take at the full 155.52 Mb/s, so the
// reported figure is truncated and the true time lies in [t, t + 1). The
// pass criterion uses the figures as published; the table also shows the
// error against the middle of that interval, for a fairer reading of the
// 1-2 s cells.

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { ClientProfileId, Op } from './client-profiles.js';
import { predict } from './predict.js';

interface ReferenceCell {
  readonly test: string;
  readonly link: string;
  readonly client: string;
  readonly seconds: number;
}

interface ReferenceFile {
  readonly source: { readonly publication: string; readonly tables: string };
  readonly linksMbps: Record<string, number>;
  readonly rttMs: number;
  readonly cells: readonly ReferenceCell[];
}

const REFERENCE_PATH = new URL('./reference/tr3869-robocopy-32ms.json', import.meta.url);

/** The TR-3869 tests as Pipefill workloads: the 100 MB file and the 1 GiB directory set. */
const TESTS: Record<string, { op: Op; workload: string }> = {
  'read-100MB': { op: 'read', workload: 'file:100MB' },
  'write-100MB': { op: 'write', workload: 'file:100MB' },
  'read-dir-1GB': { op: 'read', workload: 'tr3869-dirset' },
  'write-dir-1GB': { op: 'write', workload: 'tr3869-dirset' },
};

interface Cell {
  test: string;
  link: string;
  client: string;
  measured: number;
  predicted: number;
  error: number;
  truncationAwareError: number;
  limitedBy: string;
}

function loadReference(): ReferenceFile {
  return JSON.parse(readFileSync(REFERENCE_PATH, 'utf8')) as ReferenceFile;
}

function calibrationCells(reference: ReferenceFile): Cell[] {
  return reference.cells.map(({ test, link, client, seconds: measured }) => {
    const shape = TESTS[test];
    if (!shape) throw new Error(`Unknown TR-3869 test ${test}: map it to a workload.`);
    const mbps = reference.linksMbps[link];
    if (mbps === undefined) throw new Error(`Unknown link ${link} in the reference.`);
    const prediction = predict({
      client: client as ClientProfileId,
      server: 'netapp-tr3869',
      op: shape.op,
      workload: shape.workload,
      link: { bandwidthBitsPerSecond: mbps * 1e6, rttMs: reference.rttMs },
    });
    return {
      test,
      link,
      client,
      measured,
      predicted: prediction.seconds,
      error: (prediction.seconds - measured) / measured,
      truncationAwareError: (prediction.seconds - (measured + 0.5)) / (measured + 0.5),
      limitedBy: prediction.limitedBy,
    };
  });
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length / 2;
  return sorted.length % 2 === 1 ? (sorted[Math.floor(middle)] ?? NaN) : ((sorted[middle - 1] ?? NaN) + (sorted[middle] ?? NaN)) / 2;
}

const percent = (value: number) => `${(value * 100).toFixed(1)}%`.padStart(7);

describe('calibration against TR-3869 (32 ms)', () => {
  const reference = loadReference();
  const cells = calibrationCells(reference);

  it('predicts every published cell', () => {
    const lines = cells.map(
      (cell) =>
        `${cell.test.padEnd(14)} ${cell.link.padEnd(5)} ${cell.client.padEnd(10)} ${String(cell.measured).padStart(6)} ${cell.predicted.toFixed(1).padStart(8)} ${percent(cell.error)} ${percent(cell.truncationAwareError)}  ${cell.limitedBy}`,
    );
    const absolute = cells.map((cell) => Math.abs(cell.error));
    const truncated = cells.map((cell) => Math.abs(cell.truncationAwareError));
    console.log(
      [
        `Calibration: ${reference.source.publication}, tables ${reference.source.tables}`,
        `test           link  client     measured predicted  error  vs t+0.5  limited by`,
        ...lines,
        `median |error| ${percent(median(absolute))}, max ${percent(Math.max(...absolute))}; against t+0.5: median ${percent(median(truncated))}, max ${percent(Math.max(...truncated))}`,
      ].join('\n'),
    );
    expect(cells).toHaveLength(48);
  });

  it('has a median absolute error of at most 10%', () => {
    expect(median(cells.map((cell) => Math.abs(cell.error)))).toBeLessThanOrEqual(0.1);
  });

  it('has no cell beyond 35%', () => {
    const worst = cells.reduce((a, b) => (Math.abs(b.error) > Math.abs(a.error) ? b : a));
    expect(Math.abs(worst.error), `${worst.test} ${worst.link} ${worst.client}`).toBeLessThanOrEqual(0.35);
  });

  it('names the layers TR-3869 describes: XP by its one-at-a-time pipeline, directory writes by round trips', () => {
    for (const cell of cells.filter((c) => c.client === 'xp-smb1' && c.test.includes('100MB'))) expect(cell.limitedBy).toBe('copy-pipeline');
    for (const cell of cells.filter((c) => c.test === 'write-dir-1GB' && c.client !== 'xp-smb1' && c.link !== 'OC1'))
      expect(cell.limitedBy).toBe('round-trips');
    for (const cell of cells.filter((c) => c.link === 'OC1' && c.client !== 'xp-smb1' && c.test.includes('100MB'))) expect(cell.limitedBy).toBe('bandwidth');
  });
});
