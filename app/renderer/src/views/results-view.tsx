// Results: measured against expected for every copy (table and bars), the
// path's BDP against each layer's in-flight limit (the pipe), and the
// diagnosis in plain words.

import { serverSeenText } from '../../../../src/presentation/summary.js';
import { useMemo, useState } from 'react';
import type { Finding, Report } from '../../../../src/contract/report.js';
import { formatBytes, formatDuration } from '../../../../src/model/units.js';
import { ChartCanvas, SERIES_COLOURS } from '../charts/chart-canvas.js';
import type { Exporter } from '../state/use-export.js';
import { ExportButtons } from './export-buttons.js';
import { loginText } from '../../../../src/presentation/login-text.js';
import { bandwidthText } from '../../../../src/presentation/bandwidth-text.js';
import { overBudgetNote } from '../../../../src/presentation/report-views.js';
import { Explained, Term } from './explained.js';
import { LAYER_EXPLANATIONS, TERMS } from '../../../../src/presentation/glossary.js';
import { adviceOf, verdictOf } from '../../../../src/presentation/verdict.js';
import { ticketSummary } from '../../../../src/presentation/summary.js';
import { VerdictPanel } from './verdict-panel.js';
import type { ResultRow } from '../state/results.js';
import { diagnosisHint, headlineFinding, LAYER_LABELS, pipeFor, protectionSummary, resultRows } from '../state/results.js';
import { measuredBarsChart, pipeChartOf } from '../state/results-charts.js';
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

  const bars = useMemo(() => measuredBarsChart(rows, SERIES_COLOURS), [rows]);
  const pipeChart = useMemo(() => (pipe ? pipeChartOf(pipe, SERIES_COLOURS) : undefined), [pipe]);

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
  const overBudget = overBudgetNote(report);
  return (
    <>
      <h2>Results for {report.target.share}</h2>
      {verdict && advice && <VerdictPanel verdict={verdict} advice={advice} summary={summary} />}
      <section className="panel">
        <h3>The path</h3>
        <p className="hint">
          RTT {probes.rtt.medianMs.toFixed(2)} ms (TCP handshakes {probes.rtt.tcp.medianMs.toFixed(2)} ms, SMB2 ECHO {probes.rtt.smbEcho.medianMs.toFixed(2)}{' '}
          ms: the lower median). Bandwidth {bandwidthText(probes.bandwidth)}. Expectations for {serverSeenText(report)}, as the copies found it.
          {probes.session?.login && <span data-testid="path-login"> Logged on with {loginText(probes.session.login)}.</span>}
        </p>
        {overBudget && (
          <p className="hint" data-testid="over-budget">
            {overBudget}
          </p>
        )}
        <ExportButtons exporter={exporter} document={report} what="report" />
      </section>
      <section className="panel">
        <h3>Measured and expected</h3>
        <MeasuredTable rows={rows} selected={finding} findings={report.diagnosis.findings} onSelect={setSelected} />
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
            keeps it full);{' '}
            {pipe?.limitedElsewhere
              ? `no bar is orange: what limits this copy (${pipe.limitedElsewhere}) is no layer of bytes in flight.`
              : 'the orange bar is the layer that limits.'}
            {pipe?.bars.some((bar) => !Number.isFinite(bar.bytesInFlight)) ? ' Layers without a bar set no limit on this path.' : ''}
          </p>
        </section>
      </div>
      {finding && (
        <section className="panel">
          <h3>Diagnosis: {testLongLabel(finding)}</h3>
          <p data-testid="diagnosis">{finding.sentence}</p>
          <p className="hint">{diagnosisHint(report, finding)}</p>
        </section>
      )}
    </>
  );
}

/** Every copy measured against expected; a click on one shows its pipe and diagnosis. */
function MeasuredTable({
  rows,
  selected,
  findings,
  onSelect,
}: {
  readonly rows: readonly ResultRow[];
  readonly selected: Finding | undefined;
  readonly findings: readonly Finding[];
  readonly onSelect: (index: number) => void;
}) {
  return (
    <table data-testid="measured-table">
      <thead>
        <tr>
          <th>Test</th>
          <th className="num">Measured</th>
          <th className="num">Expected</th>
          <th className="num">
            <Term label="Rate" text={TERMS.rate.text} />
          </th>
          <th>Verdict</th>
          <th>Limited by</th>
          <th>Negotiated</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((row, index) => (
          <tr key={row.key}>
            <td>
              <button type="button" className="link" onClick={() => onSelect(index)} aria-pressed={selected === findings[index]}>
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
  );
}
