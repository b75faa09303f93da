// The answer first: the verdict for the person's client (the same lines the
// CLI prints and the report's first page shows), their rates beside what the
// path allows, the change that helps most with its command, every other
// change, and the ticket summary to copy.

import { adviceTestText, togetherEffects } from '../../../../src/presentation/test-labels.js';
import { useState } from 'react';
import type { RecommendResult } from '../../../../src/contract/recommendation.js';
import { currentText } from '../../../../src/contract/recommendation.js';
import { bitRateText, pathBitsPerSecondOf, WORKLOAD_LABELS, yourBitsPerSecond } from '../../../../src/presentation/verdict.js';
import type { Verdict } from '../../../../src/contract/verdict-schema.js';
import { readinessLine } from '../../../../src/contract/readiness.js';
import { formatDuration } from '../../../../src/model/units.js';

export interface VerdictPanelProps {
  readonly verdict: Verdict;
  readonly advice: RecommendResult;
  readonly summary: string;
}

export function VerdictPanel({ verdict, advice, summary }: VerdictPanelProps) {
  const [copied, setCopied] = useState<'copied' | 'shown' | undefined>();
  const [yours, path, limit, fix] = verdict.lines;
  const readiness = verdict.readiness ? readinessLine(verdict.readiness) : undefined;
  const copy = () => {
    // 127.0.0.1 is a secure context, so the clipboard is there; where a browser refuses, the text is shown to copy by hand.
    navigator.clipboard.writeText(summary).then(
      () => setCopied('copied'),
      () => setCopied('shown'),
    );
  };
  return (
    <>
      <section className="panel verdict" data-testid="verdict" aria-label="Verdict">
        <p className="verdict-line" data-testid="headline">
          {yours}
        </p>
        <p className="verdict-line">{path}</p>
        <p className="verdict-line" data-testid="verdict-limit">
          {limit}
        </p>
        <p
          className={verdict.fix.kind === 'change' ? 'verdict-fix' : verdict.limit.layer === 'none' ? 'verdict-none' : 'verdict-fix'}
          data-testid="verdict-fix"
        >
          {fix}
        </p>
        {verdict.fix.kind === 'change' && (
          <p className="hint">
            Command: <code>{verdict.fix.command}</code>
          </p>
        )}
        {verdict.next?.kind === 'change' && (
          <>
            <p className="verdict-fix" data-testid="verdict-next">
              {verdict.next.sentence}
            </p>
            <p className="hint">
              Command: <code>{verdict.next.command}</code>
            </p>
          </>
        )}
        {readiness && (
          <p className={verdict.readiness?.[0]?.status === 'ready' ? 'verdict-line' : 'verdict-fix'} data-testid="verdict-readiness">
            {readiness}
          </p>
        )}
        <table>
          <thead>
            <tr>
              <th>Copy</th>
              <th className="num">{verdict.clientLabel}</th>
              <th className="num">This path allows</th>
              <th className="num">Pipefill&apos;s own pipeline (measured)</th>
            </tr>
          </thead>
          <tbody>
            {verdict.rates.map((rate) => (
              <tr key={`${rate.workload}-${rate.op}`}>
                <td>
                  {WORKLOAD_LABELS[rate.workload]}, {rate.op}
                </td>
                <td className="num">
                  {bitRateText(yourBitsPerSecond(rate))}
                  {rate.projected ? ' (projected)' : ''}
                </td>
                <td className="num">{optionalRate(pathBitsPerSecondOf(rate))}</td>
                <td className="num">{optionalRate(rate.bestPipelineBitsPerSecond)}</td>
              </tr>
            ))}
          </tbody>
        </table>
        <div className="row">
          <button type="button" className="secondary" onClick={copy}>
            Copy summary
          </button>
          {copied === 'copied' && (
            <span className="hint" role="status">
              Copied: paste it into the ticket.
            </span>
          )}
        </div>
        {copied === 'shown' && <pre data-testid="summary-text">{summary}</pre>}
      </section>
      <section className="panel" data-testid="what-to-change">
        <h3>What to change</h3>
        {advice.recommendations.length === 0 ? (
          <p>Nothing to change: no setting Pipefill knows makes these copies faster on this path.</p>
        ) : (
          <AdviceTable items={advice.recommendations} together={advice.recommendations.length > 1 ? togetherEffects(advice) : []} />
        )}
        {advice.protections.length > 0 && (
          <>
            <h4>Signing and encryption, apart</h4>
            <p className="hint">Pipefill never trades protection for speed: each of these protects the data at the cost shown. Yours to decide.</p>
            <AdviceTable items={advice.protections} />
          </>
        )}
      </section>
    </>
  );
}

const optionalRate = (bitsPerSecond: number | undefined) => (bitsPerSecond === undefined ? '-' : bitRateText(bitsPerSecond));

function AdviceTable({
  items,
  together = [],
}: {
  readonly items: RecommendResult['recommendations'];
  readonly together?: readonly { readonly text: string; readonly before: number; readonly after: number }[];
}) {
  return (
    <table>
      <thead>
        <tr>
          <th>Setting</th>
          <th>Now → new</th>
          <th className="num">Effect (model, this path)</th>
          <th>Command</th>
        </tr>
      </thead>
      <tbody>
        {items.map((item) => (
          <tr key={item.id}>
            <td>{item.knob}</td>
            <td>
              {currentText(item)} → {String(item.value)}
            </td>
            <td className="num">
              {adviceTestText(item.test)}: {formatDuration(item.expectedSeconds.before * 1000)} → {formatDuration(item.expectedSeconds.after * 1000)}
            </td>
            <td>
              <code>{item.command}</code>
            </td>
          </tr>
        ))}
        {together.length > 0 && (
          <tr>
            <td colSpan={2}>
              <b>All of them together</b>
            </td>
            <td className="num">
              {together.map((effect) => (
                <div key={effect.text}>
                  {effect.text}: {formatDuration(effect.before * 1000)} → {formatDuration(effect.after * 1000)}
                </div>
              ))}
            </td>
            <td />
          </tr>
        )}
      </tbody>
    </table>
  );
}
