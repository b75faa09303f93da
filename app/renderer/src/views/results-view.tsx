// Results: measured against expected for every copy (table and bars), the
// path's BDP against each layer's in-flight limit (the pipe), and the
// diagnosis in plain words.

import { serverSeenText } from '../../../../src/presentation/summary.js';
import type { ChartConfiguration } from 'chart.js';
import { useMemo, useState } from 'react';
import type { Report } from '../../../../src/contract/report.js';
import { formatBinaryBytes, formatBytes, formatDuration, formatRate } from '../../../../src/model/units.js';
import { ChartCanvas, SERIES_COLOURS } from '../charts/chart-canvas.js';
import type { Exporter } from '../state/use-export.js';
import { ExportButtons } from './export-buttons.js';
import { loginText } from '../../../../src/presentation/login-text.js';
import { Explained, Term } from './explained.js';
import { LAYER_EXPLANATIONS, TERMS } from '../../../../src/presentation/glossary.js';
import { adviceOf, verdictOf } from '../../../../src/presentation/verdict.js';
import { ticketSummary } from '../../../../src/presentation/summary.js';
import { VerdictPanel } from './verdict-panel.js';
import { binaryLogTicks, headlineFinding, LAYER_LABELS, pipeFor, protectionSummary, resultRows } from '../state/results.js';
import { copyRateText, testLongLabel } from '../../../../src/presentation/test-labels.js';

export interface ResultsViewProps {
  readonly report: Report | undefined;
  readonly exporter: Exporter;
  readonly onStart: () => void;
}

export function ResultsView({ report, exporter, onStart }: ResultsViewProps) {
  const [selected, setSelected] = useState<number | undefined>();
  const protection = useMemo(() => (report ? protectionSummary(report) : undefined), [report]);
  const finding = report ? (selected === undefined ? headlineFinding(report) : report.diagnosis.findings[selected]) : undefined;
  const pipe = useMemo(() => (report && finding ? pipeFor(report, finding) : undefined), [report, finding]);
  const advice = useMemo(() => (report ? adviceOf(report) : undefined), [report]);
  const verdict = useMemo(() => (report && advice ? verdictOf(report, advice) : undefined), [report, advice]);
  const rows = useMemo(() => (report && verdict ? resultRows(report, verdict) : []), [report, verdict]);
  const summary = useMemo(() => (report ? ticketSummary(report) : ''), [report]);

  const bars = useMemo<ChartConfiguration>(
    () => ({
      type: 'bar',
      data: {
        labels: rows.map((row) => row.label),
        datasets: [
          { label: 'measured', data: rows.map((row) => row.measuredSeconds), backgroundColor: SERIES_COLOURS[0] },
          { label: 'expected', data: rows.map((row) => row.expectedSeconds), backgroundColor: SERIES_COLOURS[1] },
        ],
      },
      options: {
        indexAxis: 'y',
        // Linear, from zero: a person compares these times, and a log axis makes 26 s and 5 min look alike.
        scales: { x: { type: 'linear', beginAtZero: true, title: { display: true, text: 'seconds' } } },
        plugins: { legend: { position: 'bottom' } },
      },
    }),
    [rows],
  );

  const pipeChart = useMemo<ChartConfiguration | undefined>(() => {
    if (!pipe) return undefined;
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
            backgroundColor: [
              pipe.bandwidthLimits ? SERIES_COLOURS[0] : '#868e96',
              ...finite.map((bar) => (bar.limiting ? SERIES_COLOURS[0] : SERIES_COLOURS[1])),
            ],
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
  }, [pipe]);

  if (!report) {
    return (
      <>
        <h2>Results</h2>
        <section className="panel">
          <p>No results yet: run an assessment, or open a saved report in Reports.</p>
          <button type="button" className="primary" onClick={onStart}>
            Start
          </button>
        </section>
      </>
    );
  }
  const { probes } = report;
  return (
    <>
      <h2>Results for {report.target.share}</h2>
      {verdict && advice && <VerdictPanel verdict={verdict} advice={advice} summary={summary} />}
      <section className="panel">
        <h3>The path</h3>
        <p className="hint">
          RTT {probes.rtt.medianMs.toFixed(2)} ms (TCP handshakes {probes.rtt.tcp.medianMs.toFixed(2)} ms, SMB2 ECHO {probes.rtt.smbEcho.medianMs.toFixed(2)}{' '}
          ms: the lower median). Bandwidth {formatRate(probes.bandwidth.mbps * 1e6)} by {probes.bandwidth.method}
          {probes.bandwidth.via ? ` (${probes.bandwidth.via})` : ''}
          {probes.bandwidth.fallbackReason ? `: ${probes.bandwidth.fallbackReason}` : ''}. Expectations for {serverSeenText(report)}, as the copies found it.
          {probes.session?.login && <span data-testid="path-login"> Logged on with {loginText(probes.session.login)}.</span>}
        </p>
        <ExportButtons exporter={exporter} document={report} what="report" />
      </section>
      <section className="panel">
        <h3>Measured and expected</h3>
        <table data-testid="measured-table">
          <thead>
            <tr>
              <th>Test</th>
              <th className="num">Measured</th>
              <th className="num">Expected</th>
              <th className="num">Rate</th>
              <th>Verdict</th>
              <th>Limited by</th>
              <th>Negotiated</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row, index) => (
              <tr key={row.key}>
                <td>
                  <button type="button" className="link" onClick={() => setSelected(index)} aria-pressed={finding === report.diagnosis.findings[index]}>
                    {row.label}
                  </button>
                  {row.emulation && <Explained term={`How ${row.label} is emulated`}>{row.emulation}</Explained>}
                </td>
                <td className="num">
                  {formatDuration(row.measuredSeconds * 1000)}
                  {row.projected && (
                    <>
                      {' '}
                      <Term label="(projected)" text={TERMS.projected.text} />
                    </>
                  )}
                </td>
                <td className="num">{formatDuration(row.expectedSeconds * 1000)}</td>
                <td className="num">{copyRateText(row.measuredMbps * 1e6)}</td>
                <td className={`verdict-${row.status.kind}`}>{row.status.text}</td>
                <td>
                  <Term label={LAYER_LABELS[row.limitedBy]} text={LAYER_EXPLANATIONS[row.limitedBy]} />
                </td>
                <td>{row.negotiated}</td>
              </tr>
            ))}
          </tbody>
        </table>
        {rows.some((row) => row.emulation) && (
          <p className="hint">SMB1 generations are emulated over SMB2 with their I/O pattern (the ? beside each says how).</p>
        )}
        {protection && (
          <p className="hint" data-testid="protection-summary">
            {protection}
          </p>
        )}
      </section>
      <div className="grid2">
        <section className="panel">
          <h3>Measured and expected times</h3>
          <ChartCanvas
            config={bars}
            label="Measured and expected seconds for every test copy"
            height={Math.max(260, rows.length * 28)}
            testId="chart-measured"
          />
        </section>
        <section className="panel">
          <h3>The pipe: {pipe?.title}</h3>
          {pipeChart && <ChartCanvas config={pipeChart} label="The path's bandwidth-delay product against each layer's in-flight limit" testId="chart-pipe" />}
          <p className="hint">
            The path holds {pipe ? formatBytes(pipe.bdpBytes) : ''} in flight (<Term label="its BDP" text={TERMS.bdp.text} />: grey, or orange when every layer
            keeps it full); the orange bar is the layer that limits.
            {pipe?.bars.some((bar) => !Number.isFinite(bar.bytesInFlight)) ? ' Layers without a bar set no limit on this path.' : ''}
          </p>
        </section>
      </div>
      {finding && (
        <section className="panel">
          <h3>Diagnosis: {testLongLabel(finding)}</h3>
          <p data-testid="diagnosis">{finding.sentence}</p>
          <p className="hint">
            Measured {copyRateText(finding.measuredMbps * 1e6)}, about {formatBinaryBytes(finding.inFlightBytes)} in flight.
          </p>
        </section>
      )}
    </>
  );
}
