// Run: progress per step and overall, live throughput and operations per
// second for each test copy, and Cancel.

import type { ChartConfiguration } from 'chart.js';
import { useMemo } from 'react';
import { ChartCanvas, SERIES_COLOURS } from '../charts/chart-canvas.js';
import type { RunState } from '../state/run.js';
import { budgetText } from '../state/run.js';
import type { CallPhase, UiError } from '../state/use-cancellable-call.js';

export interface RunViewProps {
  readonly phase: CallPhase;
  readonly run: RunState;
  readonly error: UiError | undefined;
  readonly onCancel: () => void;
  readonly onResults: () => void;
  readonly onStart: () => void;
}

function liveChart(run: RunState, metric: 'mbps' | 'opsPerSecond', title: string): ChartConfiguration {
  return {
    type: 'line',
    data: {
      datasets: run.series.map((series, index) => ({
        label: series.label,
        data: series.points.map((point) => ({ x: point.tMs / 1000, y: point[metric] })),
        borderColor: SERIES_COLOURS[index % SERIES_COLOURS.length],
        backgroundColor: SERIES_COLOURS[index % SERIES_COLOURS.length],
        pointRadius: 0,
        borderWidth: 2,
      })),
    },
    options: {
      parsing: false,
      scales: {
        x: { type: 'linear', title: { display: true, text: 'seconds into the copy' } },
        y: { beginAtZero: true, title: { display: true, text: title } },
      },
      plugins: { legend: { position: 'bottom', labels: { boxWidth: 12 } } },
    },
  };
}

export function RunView({ phase, run, error, onCancel, onResults, onStart }: RunViewProps) {
  const throughput = useMemo(() => liveChart(run, 'mbps', 'Mb/s'), [run]);
  const ops = useMemo(() => liveChart(run, 'opsPerSecond', 'SMB operations / s'), [run]);
  return (
    <>
      <h2>Run</h2>
      <section className="panel" aria-live="polite">
        <label htmlFor="overall">Overall</label>
        <progress id="overall" max={1} value={run.fraction} data-testid="overall-progress" />
        {run.budget ? <p data-testid="budget-left">{budgetText(run.budget)}</p> : null}
        <label htmlFor="step">{run.step}</label>
        <progress id="step" max={1} value={run.stepFraction} />
        {phase === 'idle' && <p className="hint">No assessment is running. Start one from the Start view.</p>}
        {phase === 'cancelled' && <p className="hint">Cancelled. The scratch folder was removed from the share.</p>}
        {phase === 'failed' && error && (
          <p className="error" role="alert">
            {error.message} {error.hint}
          </p>
        )}
        <div className="row">
          {phase === 'running' && (
            <button type="button" className="primary" onClick={onCancel}>
              Cancel
            </button>
          )}
          {phase === 'done' && (
            <button type="button" className="primary" onClick={onResults}>
              See the results
            </button>
          )}
          {phase !== 'running' && (
            <button type="button" className="secondary" onClick={onStart}>
              Back to Start
            </button>
          )}
        </div>
      </section>
      <div className="grid2">
        <section className="panel">
          <h3>Throughput per test copy</h3>
          <ChartCanvas config={throughput} label="Live throughput of each test copy" testId="chart-throughput" />
        </section>
        <section className="panel">
          <h3>Operations per second</h3>
          <ChartCanvas config={ops} label="SMB operations per second of each test copy" testId="chart-ops" />
        </section>
      </div>
    </>
  );
}
