// One Chart.js chart in a React component: made on mount, updated in place
// when its data change (no flicker during a live run), destroyed on unmount.
// The canvas says how many points it draws (data-points), which the e2e
// tests read to prove no chart is empty.

import type { ChartConfiguration } from 'chart.js';
import { Chart, registerables } from 'chart.js';
import { useEffect, useRef } from 'react';

Chart.register(...registerables);

export interface ChartCanvasProps {
  readonly config: ChartConfiguration;
  /** What the chart shows, for screen readers. */
  readonly label: string;
  readonly height?: number;
  readonly testId?: string;
}

function pointCount(config: ChartConfiguration): number {
  return config.data.datasets.reduce((sum, dataset) => sum + dataset.data.filter((value) => value !== null && value !== undefined).length, 0);
}

export function ChartCanvas({ config, label, height = 260, testId }: ChartCanvasProps) {
  const canvas = useRef<HTMLCanvasElement>(null);
  const chart = useRef<Chart | null>(null);

  useEffect(() => {
    if (!canvas.current) return undefined;
    chart.current = new Chart(canvas.current, { ...config, options: { responsive: true, maintainAspectRatio: false, animation: false, ...config.options } });
    return () => {
      chart.current?.destroy();
      chart.current = null;
    };
    // The chart is made once per type; data and options update below.
  }, [config.type]);

  useEffect(() => {
    const current = chart.current;
    if (!current) return;
    current.data = config.data;
    current.options = { responsive: true, maintainAspectRatio: false, animation: false, ...config.options };
    current.update('none');
  }, [config]);

  return (
    <div className="chart" style={{ height }}>
      <canvas ref={canvas} role="img" aria-label={label} data-points={pointCount(config)} data-testid={testId} />
    </div>
  );
}

/** Colours that read on light and dark backgrounds, one per client generation. */
export const SERIES_COLOURS = ['#d9480f', '#1c7ed6', '#2f9e44', '#ae3ec9', '#f08c00', '#0c8599', '#e64980', '#5c940d'];
