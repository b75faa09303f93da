// The Results view's two charts, as configurations (pure, so they are
// tested without a page): each copy's measured and expected seconds, and the
// path's BDP against each layer's in-flight limit (the pipe).

import type { ChartConfiguration } from 'chart.js';
import type { Pipe } from '../../../../src/presentation/report-views.js';
import { formatBinaryBytes } from '../../../../src/model/units.js';
import type { ResultRow } from './results.js';
import { binaryLogTicks } from './results.js';

/** Measured and expected seconds for every copy, on a linear axis from zero. */
export function measuredBarsChart(rows: readonly ResultRow[], colours: readonly string[]): ChartConfiguration {
  return {
    type: 'bar',
    data: {
      labels: rows.map((row) => row.label),
      datasets: [
        { label: 'measured', data: rows.map((row) => row.measuredSeconds), backgroundColor: colours[0] ?? '' },
        { label: 'expected', data: rows.map((row) => row.expectedSeconds), backgroundColor: colours[1] ?? '' },
      ],
    },
    options: {
      indexAxis: 'y',
      // Linear, from zero: a person compares these times, and a log axis makes 26 s and 5 min look alike.
      scales: { x: { type: 'linear', beginAtZero: true, title: { display: true, text: 'seconds' } } },
      plugins: { legend: { position: 'bottom' } },
    },
  };
}

/** The pipe: the path's BDP (grey, or the limit's colour when every layer keeps it full) and each layer with a limit here. */
export function pipeChartOf(pipe: Pipe, colours: readonly string[]): ChartConfiguration {
  const [limit = '', other = ''] = colours;
  const finite = pipe.bars.filter((bar) => Number.isFinite(bar.bytesInFlight));
  const values = [pipe.bdpBytes, ...finite.map((bar) => bar.bytesInFlight)].filter((value) => value > 0);
  const ticks = binaryLogTicks(Math.min(...values), Math.max(...values));
  return {
    type: 'bar',
    data: {
      labels: ['Path BDP', ...finite.map((bar) => bar.layer)],
      datasets: [
        {
          label: 'bytes in flight',
          data: [pipe.bdpBytes, ...finite.map((bar) => bar.bytesInFlight)],
          backgroundColor: [pipe.bandwidthLimits ? limit : '#868e96', ...finite.map((bar) => (bar.limiting ? limit : other))],
        },
      ],
    },
    options: {
      indexAxis: 'y',
      scales: {
        x: {
          type: 'logarithmic',
          ...(ticks.length > 1 ? { min: ticks[0], max: ticks[ticks.length - 1] } : {}),
          // Powers of two in KiB and MiB, as windows and credits are sized, not "100,000 ... 20,000,000".
          afterBuildTicks: (axis) => {
            if (ticks.length > 1) axis.ticks = ticks.map((value) => ({ value }));
          },
          ticks: { callback: (value) => formatBinaryBytes(Number(value)) },
          title: { display: true, text: 'bytes in flight (log scale)' },
        },
      },
      plugins: { legend: { display: false } },
    },
  };
}
