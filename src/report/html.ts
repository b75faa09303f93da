// The report as one self-contained HTML file: styles inline, charts as inline
// SVG, no script and nothing fetched, so it opens from a ticket attachment and
// prints cleanly (Chromium turns it into the PDF). Pure.

import { recycleBinNote } from '../presentation/clean-up-text.js';
import { readableUtc, serverSeenText } from '../presentation/summary.js';
import { loginText } from '../presentation/login-text.js';
import { bandwidthText } from '../presentation/bandwidth-text.js';
import {
  cryptoRateRows,
  headlineFinding,
  negotiatedText,
  pathEvents,
  pipeFor,
  projectionText,
  protectionSummary,
  protectionText,
  overBudgetNote,
  rateNote,
} from '../presentation/report-views.js';
import { LAYER_LABELS } from '../model/layer-labels.js';
import type { Report } from '../contract/report.js';
import { formatBinaryBytes, formatByteRate, formatBytes, formatDuration } from '../model/units.js';
import { barChartSvg, escapeXml } from './svg.js';
import type { Paper } from '../contract/export.js';
import { copyRateOf } from '../contract/copy-rate.js';
import { copyRateText, testLongLabel, testShortLabel } from '../presentation/test-labels.js';
import { EXPORT_CSP_META, pageStyle } from './page.js';
import { adviceOf, verdictOf } from '../presentation/verdict.js';
import { copyStatus, lossEvidence } from '../presentation/copy-status.js';
import { adviceHtml, ratesTableHtml, VERDICT_STYLE, verdictHtml } from './verdict-html.js';

const MEASURED = '#d9480f';
const EXPECTED = '#1c7ed6';

const STYLE = `
body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,'Noto Sans',sans-serif;color:#1d1f21;margin:32px auto;max-width:960px;padding:0 16px}
h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 8px;border-bottom:1px solid #ddd;padding-bottom:4px}
.muted{color:#5c6166}.headline{font-size:16px;background:#f3f6fa;border-left:4px solid ${EXPECTED};padding:10px 14px}
table{border-collapse:collapse;width:100%;font-size:12.5px}th,td{text-align:left;padding:4px 6px;border-bottom:1px solid #e5e5e5;vertical-align:top}
th{color:#5c6166}td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}
.slower-than-expected{color:#c92a2a}.as-expected{color:#2b8a3e}.faster-than-expected{color:#b35c00}.held-back{color:#b35c00}
svg{max-width:100%;height:auto}
@media print{body{margin:0;max-width:none}h2{break-after:avoid}table,svg,.finding{break-inside:avoid}.headline{background:none}}
${VERDICT_STYLE}`;

const cell = (text: string, numeric = false, className = '') =>
  `<td${numeric ? ' class="n"' : className ? ` class="${className}"` : ''}>${escapeXml(text)}</td>`;

export interface HtmlOptions {
  /** The paper it prints on (and Chromium's PDF of it): A4 unless Letter is asked for. */
  readonly paper?: Paper;
}

export function reportHtml(report: Report, options: HtmlOptions = {}): string {
  const { probes, diagnosis } = report;
  const advice = adviceOf(report);
  const verdict = verdictOf(report, advice);
  const findings = diagnosis.findings;
  const labels = findings.map((f) => testShortLabel(f));
  const times = barChartSvg({
    title: 'Measured and expected time per test copy',
    labels,
    series: [
      { name: 'measured', colour: MEASURED, values: findings.map((f) => f.measuredSeconds) },
      { name: 'expected', colour: EXPECTED, values: findings.map((f) => f.expectedSeconds) },
    ],
    // Linear: a person compares these times, and a log axis makes 26 s and 5 min look alike.
    axis: 'seconds',
    format: (value) => formatDuration(value * 1000),
  });
  const focus = headlineFinding(report);
  const pipe = focus ? pipeFor(report, focus) : undefined;
  const pipeSvg = pipe
    ? barChartSvg({
        title: `The pipe: ${pipe.title}`,
        labels: ['Path BDP', ...pipe.bars.filter((bar) => Number.isFinite(bar.bytesInFlight)).map((bar) => bar.layer)],
        series: [
          {
            name: 'bytes in flight',
            colour: EXPECTED,
            values: [pipe.bdpBytes, ...pipe.bars.filter((bar) => Number.isFinite(bar.bytesInFlight)).map((bar) => bar.bytesInFlight)],
          },
        ],
        axis: pipe.limitedElsewhere
          ? `bytes in flight (log scale); what limits this copy (${pipe.limitedElsewhere}) is no layer of bytes in flight`
          : 'bytes in flight (log scale); the orange bar limits',
        log: true,
        highlight: { label: pipe.bandwidthLimits ? 'Path BDP' : (pipe.bars.find((bar) => bar.limiting)?.layer ?? ''), colour: MEASURED },
        format: (value) => formatBinaryBytes(value),
      })
    : '';
  const rows = findings.map((f, index) => {
    const test = report.copyTests[index];
    const status = copyStatus(f, verdict, lossEvidence(report, index));
    return `<tr>${cell(testShortLabel(f))}${cell(`${formatDuration(f.measuredSeconds * 1000)}${f.projected ? '*' : ''}`, true)}${cell(formatDuration(f.expectedSeconds * 1000), true)}${cell(copyRateText(copyRateOf(report.copyTests, f).bitsPerSecond), true)}${cell(status.text, false, status.kind)}${cell(LAYER_LABELS[f.limitedBy])}${cell(test ? negotiatedText(test.negotiated) : '')}</tr>`;
  });
  const overBudget = overBudgetNote(report);
  const overBudgetHtml = overBudget ? `<p>${escapeXml(overBudget)}</p>\n` : '';
  const rateNoteHtml = rateNote(report, 'Rate: ')
    .map((note) => `<p class="muted">${escapeXml(note)}</p>\n`)
    .join('');
  const projectedNotes = report.copyTests.flatMap((test) =>
    test.projected ? [`<li>${escapeXml(`${testShortLabel(test)}: ${projectionText(test.projected)}`)}</li>`] : [],
  );
  const sentences = findings.map((f) => `<div class="finding"><p><strong>${escapeXml(testLongLabel(f))}</strong>: ${escapeXml(f.sentence)}</p></div>`);
  const emulated = report.copyTests.find((test) => test.emulation)?.emulation;
  // What the path did during the copies (stalls, a changed round trip, loss), where it did anything.
  const pathNotes = report.copyTests.flatMap((test) => pathEvents(test).map((event) => `<li>${escapeXml(testShortLabel(test))}: ${escapeXml(event)}</li>`));
  const protection = protectionSummary(report);
  const cryptoRows = cryptoRateRows(report).map(
    (row) =>
      `<tr><td>${escapeXml(row.algorithm)}</td><td class="n">${escapeXml(formatByteRate(row.protect))}</td><td class="n">${escapeXml(formatByteRate(row.check))}</td></tr>`,
  );
  const cryptoSection = protection
    ? `<h2>Signing and encryption</h2>\n<p>${escapeXml(protection)}</p>${cryptoRows.length > 0 ? `\n<table>\n<thead><tr><th>Algorithm</th><th class="n">Sign / seal, one core</th><th class="n">Verify / open, one core</th></tr></thead>\n<tbody>\n${cryptoRows.join('\n')}\n</tbody>\n</table>\n<p class="muted">Measured on this machine at the start of the assessment${report.crypto?.serverOnThisMachine ? '; the share was on this machine too, so the server was weighed at the same rates' : ''}.</p>` : ''}`
    : '';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
${EXPORT_CSP_META}
<title>Pipefill report: ${escapeXml(report.target.share)}</title>
<style>${STYLE}${pageStyle(options.paper ?? 'a4')}</style>
</head>
<body>
<h1>Pipefill report: ${escapeXml(report.target.share)}</h1>
<p class="muted">Assessed ${escapeXml(readableUtc(report.startedAt))} to ${escapeXml(readableUtc(report.finishedAt).replace(/^\d{4}-\d{2}-\d{2} /, ''))} as ${escapeXml(report.target.user)}, for ${escapeXml(verdict.clientLabel)}; expectations for ${escapeXml(serverSeenText(report))}, as the copies found it.</p>
${verdictHtml(verdict)}
${adviceHtml(advice)}
${ratesTableHtml(verdict)}
<h2>Diagnosis</h2>
${sentences.join('\n')}
<h2>Measured and expected</h2>
${times}
${pipeSvg}
<table>
<thead><tr><th>Test</th><th class="n">Measured</th><th class="n">Expected</th><th class="n">Rate</th><th>Verdict</th><th>Limited by</th><th>Negotiated</th></tr></thead>
<tbody>
${rows.join('\n')}
</tbody>
</table>
${rateNoteHtml}${projectedNotes.length > 0 ? `<p class="muted">* Projected: the copy stopped within the run's ${report.options.budgetSeconds ?? ''} s budget, or did not run (a quick run's directory sets), and its workload's time was projected as listed below. ${escapeXml(report.options.settleRule ?? '')}</p>\n<ul class="muted">\n${projectedNotes.join('\n')}\n</ul>` : ''}
${emulated ? `<p class="muted">${escapeXml(emulated)}</p>` : ''}
${report.keptByRecycleBin ? `<p class="muted">${escapeXml(recycleBinNote(report.keptByRecycleBin))}</p>` : ''}
${pathNotes.length > 0 ? `<h2>What the path did during the copies</h2>\n<ul>\n${pathNotes.join('\n')}\n</ul>` : ''}
${cryptoSection}
<h2>How it was measured</h2>
<h3>The path</h3>
<p>RTT ${probes.rtt.medianMs.toFixed(2)} ms median (TCP handshakes: min ${probes.rtt.tcp.minMs.toFixed(2)}, p95 ${probes.rtt.tcp.p95Ms.toFixed(2)}, jitter ${probes.rtt.tcp.jitterMs.toFixed(2)} ms; SMB2 ECHO ${probes.rtt.smbEcho.medianMs.toFixed(2)} ms${probes.session ? ` over SMB ${escapeXml(probes.session.dialect)}, ${escapeXml(protectionText(probes.session))}` : ''})${probes.session?.login ? `; logged on with ${escapeXml(loginText(probes.session.login) ?? '')}` : ''}.
Bandwidth ${escapeXml(bandwidthText(probes.bandwidth))}.
${pipe ? `The path holds ${escapeXml(formatBytes(pipe.bdpBytes))} in flight (its bandwidth-delay product).` : ''}</p>
${overBudgetHtml}<p class="muted">Report schema ${report.schemaVersion}. Pipefill ${escapeXml(report.environment.pipefillVersion)} on ${escapeXml(`${report.environment.platform} ${report.environment.release}`)}, Node ${escapeXml(report.environment.node)}. No password or hash of one is stored in this report.</p>
</body>
</html>
`;
}
