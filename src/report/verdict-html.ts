// The report's first page: the verdict for the person's client and the
// changes that help, each with its command. What a ticket reader sees before
// any table of measurements. Pure.

import { adviceTestText, togetherEffects } from '../presentation/test-labels.js';
import type { RecommendationOut, RecommendResult } from '../contract/recommendation.js';
import { currentText } from '../contract/recommendation.js';
import { bitRateText, pathBitsPerSecondOf, WORKLOAD_LABELS, yourBitsPerSecond } from '../presentation/verdict.js';
import type { Verdict } from '../contract/verdict-schema.js';
import { readinessLine } from '../contract/readiness.js';
import { formatDuration } from '../model/units.js';
import { escapeXml } from './svg.js';

export const VERDICT_STYLE = `
.verdict{background:#f3f6fa;border-left:4px solid #1c7ed6;padding:8px 14px;margin:12px 0}
.verdict p{margin:4px 0}.verdict .fix{font-weight:600}.verdict .none{font-weight:600;color:#2b8a3e}
code{font:12px ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;background:#f1f3f5;padding:1px 4px;border-radius:3px;word-break:break-all}
@media print{.verdict{background:none}}
`;

const PLACES: Readonly<Record<RecommendationOut['platform'], string>> = {
  'windows-client': 'Windows client',
  'windows-server': 'Windows server',
  samba: 'Samba server',
  ontap: 'NetApp filer',
  linux: 'Linux client',
  macos: 'Mac client',
  'copy-tool': 'Copy tool',
};

/** The rates side by side: after What to change on the page, so page 1 of the PDF holds the answer and the changes. */
export function ratesTableHtml(verdict: Verdict): string {
  const rate = (bitsPerSecond: number | undefined) => (bitsPerSecond === undefined ? '-' : escapeXml(bitRateText(bitsPerSecond)));
  const rows = verdict.rates.map(
    (entry) =>
      `<tr><td>${WORKLOAD_LABELS[entry.workload]}, ${entry.op}</td><td class="n">${rate(yourBitsPerSecond(entry))}${entry.projected ? '*' : ''}</td><td class="n">${rate(pathBitsPerSecondOf(entry))}</td><td class="n">${rate(entry.bestPipelineBitsPerSecond)}</td></tr>`,
  );
  return `<h2>Rates</h2>\n<table>\n<thead><tr><th>Copy</th><th class="n">${escapeXml(verdict.clientLabel)}</th><th class="n">This path allows</th><th class="n">Pipefill's own pipeline (measured)</th></tr></thead>\n<tbody>\n${rows.join('\n')}\n</tbody>\n</table>`;
}

/** The verdict box: the same lines the CLI prints first. */
export function verdictHtml(verdict: Verdict): string {
  const [yours, path, limit, fix] = verdict.lines;
  const readiness = verdict.readiness ? readinessLine(verdict.readiness) : undefined;
  // Green only where there is truly nothing to fix; a limit no setting reaches is no good news.
  const fixClass = verdict.fix.kind === 'change' ? 'fix' : verdict.limit.layer === 'none' ? 'none' : 'fix';
  return `<section class="verdict">
<p>${escapeXml(yours ?? '')}</p>
<p>${escapeXml(path ?? '')}</p>
<p>${escapeXml(limit ?? '')}</p>
<p class="${fixClass}">${escapeXml(fix ?? '')}</p>
${verdict.fix.kind === 'change' ? `<p>Command: <code>${escapeXml(verdict.fix.command)}</code></p>` : ''}
${verdict.next?.kind === 'change' ? `<p class="fix">${escapeXml(verdict.next.sentence)}</p>\n<p>Command: <code>${escapeXml(verdict.next.command)}</code></p>` : ''}
${readiness ? `<p class="${verdict.readiness?.[0]?.status === 'ready' ? 'none' : 'fix'}">${escapeXml(readiness)}</p>` : ''}
</section>`;
}

function adviceRow(recommendation: RecommendationOut): string {
  const { before, after } = recommendation.expectedSeconds;
  return `<tr><td>${escapeXml(PLACES[recommendation.platform])}</td><td>${escapeXml(recommendation.knob)}</td><td>${escapeXml(`${currentText(recommendation)} → ${String(recommendation.value)}`)}</td><td class="n">${escapeXml(`${adviceTestText(recommendation.test)}: ${formatDuration(before * 1000)} → ${formatDuration(after * 1000)}`)}</td><td><code>${escapeXml(recommendation.command)}</code></td></tr>`;
}

/** Every change made at once, on the copies a person knows: what "this path allows" is. */
function togetherRow(advice: RecommendResult): string {
  if (advice.recommendations.length < 2) return '';
  const effects = togetherEffects(advice).map((effect) => `${effect.text}: ${formatDuration(effect.before * 1000)} → ${formatDuration(effect.after * 1000)}`);
  return `<tr><td colspan="3"><b>All of them together</b></td><td class="n">${escapeXml(effects.join('; '))}</td><td></td></tr>\n`;
}

const ADVICE_HEAD = '<thead><tr><th>Where</th><th>Setting</th><th>Now → new</th><th class="n">Effect (model, on this path)</th><th>Command</th></tr></thead>';

/** "What to change": every recommendation for the assessed client and server, and the protection settings apart with their cost. */
export function adviceHtml(advice: RecommendResult): string {
  const changes =
    advice.recommendations.length > 0
      ? `<table>\n${ADVICE_HEAD}\n<tbody>\n${advice.recommendations.map(adviceRow).join('\n')}\n${togetherRow(advice)}</tbody>\n</table>`
      : '<p>Nothing to change: no setting Pipefill knows makes these copies faster on this path.</p>';
  const protections =
    advice.protections.length > 0
      ? `<p class="muted">Signing and encryption, listed apart: Pipefill never trades protection for speed. Each protects the data at the cost shown; yours to decide.</p>\n<table>\n${ADVICE_HEAD}\n<tbody>\n${advice.protections.map(adviceRow).join('\n')}\n</tbody>\n</table>`
      : '';
  return `<h2>What to change</h2>\n${changes}\n${protections}`;
}
