import { describe, expect, it } from 'vitest';
import { MIB, KIB } from '../../../../src/model/client-profiles.js';
import type { Pipe } from '../../../../src/presentation/report-views.js';
import { pipeChartOf } from './results-charts.js';

const COLOURS = ['orange', 'blue'];
// The demo's Windows 11 read: 16 credits of 64 KiB hold back a path whose BDP is 480 KB; no window limit on this path.
const held: Pipe = {
  title: 'Windows 11, large file read',
  bdpBytes: 480_000,
  bandwidthLimits: false,
  bars: [
    { layer: 'Copy pipeline', bytesInFlight: 4 * MIB, limiting: false },
    { layer: 'SMB credits', bytesInFlight: 16 * 64 * KIB, limiting: true },
    { layer: 'TCP window', bytesInFlight: Infinity, limiting: false },
  ],
};

describe("the Results view's pipe chart", () => {
  it('draws the BDP grey and the limiting layer in the limit colour, and leaves out a layer with no limit here', () => {
    const chart = pipeChartOf(held, COLOURS);
    expect(chart.data.labels).toEqual(['Path BDP', 'Copy pipeline', 'SMB credits']);
    expect(chart.data.datasets[0]?.backgroundColor).toEqual(['#868e96', 'blue', 'orange']);
  });

  it('draws the BDP in the limit colour where the link itself limits', () => {
    const chart = pipeChartOf({ ...held, bandwidthLimits: true, bars: held.bars.map((bar) => ({ ...bar, limiting: false })) }, COLOURS);
    expect(chart.data.datasets[0]?.backgroundColor).toEqual(['orange', 'blue', 'blue']);
  });
});
