// Run: progress per step and overall, live throughput as small multiples
// (one chart per kind of copy, a line per client) or as a table, and Cancel.

import type { ChartConfiguration } from 'chart.js';
import { useMemo, useState } from 'react';
import { ChartCanvas, SERIES_COLOURS } from '../charts/chart-canvas.js';
import type { LiveGroup, RunState } from '../state/run.js';
import { budgetText, liveGroups, liveRows } from '../state/run.js';
import type { CallPhase, UiError } from '../state/use-cancellable-call.js';

export interface RunViewProps {
  readonly phase: CallPhase;
  readonly run: RunState;
  readonly error: UiError | undefined;
  readonly onCancel: () => void;
  readonly onResults: () => void;
  readonly onStart: () => void;
}

/** One small multiple: Mb/s against seconds, a line per client, the same colour per client in every chart. */
function groupChart(group: LiveGroup): ChartConfiguration {
  return {
    type: 'line',
    data: {
      datasets: group.series.map((series) => ({
        label: series.label,
        data: series.points.map((point) => ({ x: point.tMs / 1000, y: point.mbps })),
        borderColor: SERIES_COLOURS[series.colourIndex % SERIES_COLOURS.length],
        backgroundColor: SERIES_COLOURS[series.colourIndex % SERIES_COLOURS.length],
        pointRadius: 0,
        borderWidth: 2,
      })),
    },
    options: {
      parsing: false,
      scales: {
        x: { type: 'linear', beginAtZero: true, title: { display: true, text: 'seconds into the copy' } },
        y: { beginAtZero: true, title: { display: true, text: 'Mb/s' } },
      },
      plugins: { legend: { position: 'bottom', labels: { boxWidth: 12 } } },
    },
  };
}

function LiveChart({ group, index }: { readonly group: LiveGroup; readonly index: number }) {
  const config = useMemo(() => groupChart(group), [group]);
  return (
    <section className="panel small-multiple">
      <h3>{group.title}</h3>
      <ChartCanvas config={config} label={`Live throughput: ${group.title}, a line per client`} height={200} testId={`chart-live-${index}`} />
    </section>
  );
}

function LiveTable({ run }: { readonly run: RunState }) {
  const rows = useMemo(() => liveRows(run.series), [run.series]);
  return (
    <section className="panel">
      <table data-testid="live-table">
        <caption>Each test copy so far</caption>
        <thead>
          <tr>
            <th>Copy</th>
            <th className="num">Time so far</th>
            <th className="num">Median rate</th>
            <th className="num">Requests / s</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={row.key}>
              <td>{row.label}</td>
              <td className="num">{row.seconds}</td>
              <td className="num">{row.rate}</td>
              <td className="num">{row.opsPerSecond}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

export function RunView({ phase, run, error, onCancel, onResults, onStart }: RunViewProps) {
  const groups = useMemo(() => liveGroups(run.series), [run.series]);
  const [asTable, setAsTable] = useState(false);
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
      {run.series.length > 0 && (
        <div className="row view-switch">
          <button type="button" className="secondary" aria-pressed={asTable} onClick={() => setAsTable(!asTable)} data-testid="live-as-table">
            {asTable ? 'Show as charts' : 'Show as a table'}
          </button>
        </div>
      )}
      {asTable ? (
        <LiveTable run={run} />
      ) : (
        <div className="grid2" data-testid="live-charts" data-points={run.series.reduce((sum, series) => sum + series.points.length, 0)}>
          {groups.map((group, index) => (
            <LiveChart key={group.title} group={group} index={index} />
          ))}
        </div>
      )}
    </>
  );
}
