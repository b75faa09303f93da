// A capacity run for a ticket or a branch-readiness review: CSV with one row
// per step, and one self-contained HTML page (charts as inline SVG, no
// script) that Chromium prints to PDF. Pure.

import type { Paper } from '../contract/export.js';
import { EXPORT_CSP_META, pageStyle } from './page.js';
import type { CapacityResult } from '../contract/capacity.js';
import { csvRows } from '../presentation/csv.js';
import { formatBinaryBytes } from '../model/units.js';
import { barChartSvg, escapeXml } from './svg.js';
import { readableUtc } from '../presentation/summary.js';
import { kneeText, modelServerText } from '../presentation/capacity-text.js';

const MEASURED = '#d9480f';
const EXPECTED = '#1c7ed6';

const HEADER = [
  'share',
  'started_at',
  'profile',
  'server',
  'op',
  'people',
  'measured_by',
  'seconds',
  'aggregate_mbps',
  'expected_aggregate_mbps',
  'expected_run_to_run_mbps',
  'per_person_min_mbps',
  'per_person_median_mbps',
  'per_person_max_mbps',
  'expected_per_person_mbps',
  'fairness',
  'echo_p50_ms',
  'echo_p95_ms',
  'added_ms',
  'expected_added_ms',
  'open_close_p50_ms',
  'open_close_p95_ms',
  'failed_people',
  'model_limit',
];

export function capacityCsv(result: CapacityResult): string {
  const rows = result.steps.map((step) => [
    result.share,
    result.startedAt,
    result.profile,
    result.server,
    result.op,
    step.users,
    step.measuredBy,
    step.seconds,
    step.aggregateMbps,
    step.expected?.aggregateMbps ?? '',
    step.expected?.runToRunMbps ?? '',
    step.minMbps ?? '',
    step.medianMbps ?? '',
    step.maxMbps ?? '',
    step.expected?.perUserMbps ?? '',
    step.fairness ?? '',
    step.echo.p50Ms ?? '',
    step.echo.p95Ms ?? '',
    step.addedLatencyMs ?? '',
    step.expected?.addedLatencyMs ?? '',
    step.openClose.p50Ms ?? '',
    step.openClose.p95Ms ?? '',
    step.perUser.filter((user) => user.failed !== undefined).length,
    step.expected?.limit ?? '',
  ]);
  return csvRows([HEADER, ...rows]);
}

const STYLE = `
body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,'Noto Sans',sans-serif;color:#1d1f21;margin:32px auto;max-width:960px;padding:0 16px}
h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 8px;border-bottom:1px solid #ddd;padding-bottom:4px}
.muted{color:#5c6166}.headline{font-size:16px;background:#f3f6fa;border-left:4px solid ${EXPECTED};padding:10px 14px}
.met{color:#2b8a3e}.not-met{color:#c92a2a}
table{border-collapse:collapse;width:100%;font-size:12.5px}th,td{text-align:left;padding:4px 6px;border-bottom:1px solid #e5e5e5;vertical-align:top}
th{color:#5c6166}td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}
svg{max-width:100%;height:auto}
@media print{body{margin:0;max-width:none}h2{break-after:avoid}table,svg{break-inside:avoid}.headline{background:none}}
`;

const number = (value: number | null, digits = 1) => (value === null ? '–' : value.toFixed(digits));
const people = (count: number) => `${count} ${count === 1 ? 'person' : 'people'}`;
const td = (text: string, numeric = false) => `<td${numeric ? ' class="n"' : ''}>${escapeXml(text)}</td>`;

export function capacityHtml(result: CapacityResult, options: { readonly paper?: Paper } = {}): string {
  const labels = result.steps.map((step) => people(step.users));
  const throughput = barChartSvg({
    title: 'Everyone together, measured and modelled',
    labels,
    series: [
      { name: 'measured', colour: MEASURED, values: result.steps.map((step) => step.aggregateMbps) },
      { name: 'model', colour: EXPECTED, values: result.steps.map((step) => step.expected?.aggregateMbps ?? null) },
    ],
    axis: 'Mb/s',
    format: (value) => `${value.toFixed(1)} Mb/s`,
  });
  const wait = barChartSvg({
    title: 'What load adds to a round trip (median SMB2 ECHO over idle)',
    labels,
    series: [
      { name: 'measured', colour: MEASURED, values: result.steps.map((step) => step.addedLatencyMs) },
      { name: 'model', colour: EXPECTED, values: result.steps.map((step) => step.expected?.addedLatencyMs ?? null) },
    ],
    axis: 'ms',
    format: (value) => `${value.toFixed(1)} ms`,
  });
  const rows = result.steps.map(
    (step) =>
      `<tr>${td(String(step.users), true)}${td(number(step.aggregateMbps), true)}${td(`${number(step.expected?.aggregateMbps ?? null)}${step.expected?.runToRunMbps ? ` ±${number(step.expected.runToRunMbps)}` : ''}`, true)}${td(`${number(step.minMbps, 2)} / ${number(step.medianMbps, 2)} / ${number(step.maxMbps, 2)}`, true)}${td(number(step.fairness, 2), true)}${td(`${number(step.echo.p50Ms)} / ${number(step.echo.p95Ms)}`, true)}${td(`${number(step.addedLatencyMs)} (${number(step.expected?.addedLatencyMs ?? null)})`, true)}${td(`${number(step.openClose.p50Ms)} / ${number(step.openClose.p95Ms)}`, true)}${td(step.expected?.limit ?? '')}</tr>`,
  );
  const link = result.link
    ? `path ${number(result.link.mbps)} Mb/s (${result.link.method}), ${number(result.link.rttMs)} ms, a queue of ${formatBinaryBytes(result.link.bufferBytes)} assumed`
    : 'no path probe';
  const readiness = result.readiness ? `<p class="headline ${result.readiness.met ? 'met' : 'not-met'}">${escapeXml(result.readiness.text)}</p>` : '';
  const failures =
    result.failures.length > 0
      ? `<h2>People who stopped</h2><ul>${result.failures.map((failure) => `<li>${escapeXml(`Person ${failure.user + 1}, during the step of ${people(failure.step)}: ${failure.message}`)}</li>`).join('')}</ul>`
      : '';
  const byRequests = result.steps.some((step) => step.measuredBy === 'requests')
    ? `<p class="muted">Each person's bytes were counted by completed SMB requests (no per-connection TCP counters on this machine): a step carries up to one request's worth of error per person.</p>`
    : '';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">${EXPORT_CSP_META}<title>${escapeXml(`Pipefill capacity: ${result.share}`)}</title><style>${STYLE}${pageStyle(options.paper ?? 'a4')}</style></head>
<body>
<h1>${escapeXml(`Branch capacity: ${result.share}`)}</h1>
<p class="muted">${escapeXml(`${readableUtc(result.startedAt)}; ${result.profile} ${result.op}, ${formatBinaryBytes(result.fileBytes)} files, ${result.seconds} s per step after ${result.warmupSeconds} s warm-up; SMB ${result.negotiated.dialect}; ${link}; server profile ${result.server}`)}</p>
${readiness}
<p>${escapeXml(kneeText(result))}</p>
<p class="muted">${escapeXml(modelServerText(result))}</p>
<p class="muted">${escapeXml(`Idle: SMB2 ECHO ${number(result.idle.echo.p50Ms)} ms (p95 ${number(result.idle.echo.p95Ms)}), a small file's open and close ${number(result.idle.openClose.p50Ms)} ms.`)}</p>
<h2>Throughput</h2>
${throughput}
<h2>Waiting</h2>
${wait}
<h2>Every step</h2>
<table><thead><tr><th class="n">people</th><th class="n">Mb/s</th><th class="n">model</th><th class="n">each min / median / max</th><th class="n">fairness</th><th class="n">ECHO p50 / p95 ms</th><th class="n">added ms (model)</th><th class="n">open+close p50 / p95 ms</th><th>model: what limits</th></tr></thead>
<tbody>${rows.join('')}</tbody></table>
${byRequests}
${failures}
</body></html>
`;
}
