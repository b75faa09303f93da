// Reports: open saved assessments (and capacity runs) and compare sites,
// slowest first, for the generation and test a readiness review cares about.

import { clientLongLabel } from '../../../../src/presentation/test-labels.js';
import { targetText } from '../../../../src/presentation/glossary.js';
import { parseTarget } from '../../../../src/presentation/compare.js';
import { useMemo, useState } from 'react';
import type { CapacityResult } from '../../../../src/contract/capacity.js';
import type { Report } from '../../../../src/contract/report.js';
import { checkReportSize } from '../../../../src/contract/report.js';
import type { ClientProfileId, Op } from '../../../../src/model/client-profiles.js';
import { CLIENT_PROFILE_IDS } from '../../../../src/model/client-profiles.js';
import { formatDuration, formatRate } from '../../../../src/model/units.js';
import { openedDocument, readiness, reportsStart, siteRows } from '../state/compare.js';
import { LAYER_LABELS } from '../state/results.js';

export interface ReportsViewProps {
  readonly reports: readonly Report[];
  /** Capacity runs made in this session or opened here: each joins its share's readiness row. */
  readonly capacityRuns: readonly CapacityResult[];
  readonly onOpen: (opened: { readonly reports: readonly Report[]; readonly capacityRuns: readonly CapacityResult[] }) => void;
  readonly onShow: (report: Report) => void;
}

export function ReportsView({ reports, capacityRuns, onOpen, onShow }: ReportsViewProps) {
  // The view opens on the reports it was given: the share just assessed.
  const [start] = useState(() => reportsStart(reports));
  const [profile, setProfile] = useState<ClientProfileId>(start.profile);
  const [op, setOp] = useState<Op>('write');
  const [kind, setKind] = useState<'file' | 'dirset'>('dirset');
  const [errors, setErrors] = useState<string[]>([]);
  const [target, setTarget] = useState(start.target);
  const rows = useMemo(() => siteRows(reports, profile, op, kind), [reports, profile, op, kind]);
  const review = useMemo(() => readiness(reports, target, capacityRuns), [reports, target, capacityRuns]);
  const targetWords = useMemo(() => {
    try {
      return targetText(parseTarget(target));
    } catch {
      return undefined;
    }
  }, [target]);
  const withCapacity = !('error' in review) && review.sites.some((site) => site.capacity);

  const open = async (files: FileList | null) => {
    if (!files) return;
    const opened = { reports: [] as Report[], capacityRuns: [] as CapacityResult[] };
    const failed: string[] = [];
    for (const file of Array.from(files)) {
      try {
        checkReportSize(file.size, file.name);
        const document = openedDocument(await file.text(), file.name);
        if ('report' in document) opened.reports.push(document.report);
        else opened.capacityRuns.push(document.capacity);
      } catch (error) {
        failed.push(error instanceof Error ? error.message : String(error));
      }
    }
    setErrors(failed);
    if (opened.reports.length > 0 || opened.capacityRuns.length > 0) onOpen(opened);
  };

  return (
    <>
      <h2>Reports</h2>
      <section className="panel">
        <label htmlFor="open-reports">Open saved reports or capacity runs (JSON)</label>
        <input id="open-reports" type="file" accept="application/json,.json" multiple onChange={(e) => void open(e.target.files)} />
        {errors.map((error) => (
          <p className="error" key={error}>
            {error}
          </p>
        ))}
        <p className="hint">The sites below are ranked by this copy, slowest first:</p>
        <div className="row">
          <label htmlFor="cmp-profile">Generation</label>
          <select id="cmp-profile" value={profile} onChange={(e) => setProfile(e.target.value as ClientProfileId)}>
            {CLIENT_PROFILE_IDS.map((id) => (
              <option key={id} value={id}>
                {clientLongLabel(id)}
              </option>
            ))}
          </select>
          <label htmlFor="cmp-op">Direction</label>
          <select id="cmp-op" value={op} onChange={(e) => setOp(e.target.value as Op)}>
            <option>read</option>
            <option>write</option>
          </select>
          <label htmlFor="cmp-kind">Test</label>
          <select id="cmp-kind" value={kind} onChange={(e) => setKind(e.target.value as 'file' | 'dirset')}>
            <option value="file">large file</option>
            <option value="dirset">small files</option>
          </select>
        </div>
      </section>
      {reports.length > 0 && (
        <section className="panel">
          <h3>Branch readiness</h3>
          <label htmlFor="target">Target</label>
          <input id="target" type="text" value={target} onChange={(e) => setTarget(e.target.value)} aria-describedby="target-hint" />
          <p className="hint" id="target-hint" data-testid="target-text">
            {targetWords ? `Each site passes when ${targetWords}, as the model times it on the site's measured path.` : ''} Written as
            &lt;dirset|file&gt;[/read|/write]&lt;&lt;time&gt;@&lt;client&gt;.
          </p>
          {'error' in review ? <p className="error">{review.error}</p> : <ReadinessTable sites={review.sites} withCapacity={withCapacity} />}
          {!('error' in review) && review.capacityWithoutAssessment.length > 0 && (
            <p className="hint">Capacity runs with no assessment of the same share open: {review.capacityWithoutAssessment.join(', ')}.</p>
          )}
        </section>
      )}
      <section className="panel">
        <h3>Measured</h3>
        {reports.length === 0 ? (
          <p>No reports open. Run an assessment, or open saved ones above.</p>
        ) : (
          <SitesTable rows={rows} reports={reports} onShow={onShow} />
        )}
      </section>
    </>
  );
}

type Review = ReturnType<typeof readiness>;

/** Each site against the target: its time, pass or fail, the change that would make it pass, and its capacity where a run was opened. */
function ReadinessTable({ sites, withCapacity }: { readonly sites: Exclude<Review, { error: string }>['sites']; readonly withCapacity: boolean }) {
  return (
    <table data-testid="readiness">
      <thead>
        <tr>
          <th>Site</th>
          <th className="num">Time</th>
          <th>Verdict</th>
          <th>To pass</th>
          {withCapacity && <th>People copying at once</th>}
        </tr>
      </thead>
      <tbody>
        {sites.map((site) => (
          <tr key={`${site.site}-${site.assessedAt}`}>
            <td>{site.site}</td>
            <td className="num">{formatDuration(site.seconds * 1000)}</td>
            <td className={site.passes ? 'verdict-as-expected' : 'verdict-slower-than-expected'}>{site.passes ? 'passes' : 'fails'}</td>
            <td>{site.fix ?? ''}</td>
            {withCapacity && (
              <td className={site.capacity?.met === true ? 'verdict-as-expected' : site.capacity?.met === false ? 'verdict-slower-than-expected' : undefined}>
                {site.capacity?.text ?? ''}
              </td>
            )}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** The open reports' sites, ranked by the chosen copy, each with a button to show its results. */
function SitesTable({
  rows,
  reports,
  onShow,
}: {
  readonly rows: ReturnType<typeof siteRows>;
  readonly reports: readonly Report[];
  readonly onShow: (report: Report) => void;
}) {
  return (
    <table data-testid="sites">
      <thead>
        <tr>
          <th>Site</th>
          <th className="num">RTT</th>
          <th className="num">Bandwidth</th>
          <th className="num">Time</th>
          <th>Limited by</th>
          <th>Assessed</th>
          <th />
        </tr>
      </thead>
      <tbody>
        {rows.map((row, index) => (
          <tr key={`${row.site}-${row.startedAt}`}>
            <td>{row.site}</td>
            <td className="num">{row.rttMs.toFixed(1)} ms</td>
            <td className="num">{formatRate(row.bandwidthMbps * 1e6)}</td>
            <td className="num">{row.seconds === undefined ? 'not tested' : formatDuration(row.seconds * 1000)}</td>
            <td>{row.limitedBy ? LAYER_LABELS[row.limitedBy as keyof typeof LAYER_LABELS] : ''}</td>
            <td>{row.startedAt.slice(0, 16).replace('T', ' ')}</td>
            <td>
              <button
                type="button"
                className="secondary"
                onClick={() => {
                  const report = reports.find((r) => r.startedAt === row.startedAt && r.target.share === row.site);
                  if (report) onShow(report);
                }}
                aria-label={`Show the results of report ${index + 1}`}
              >
                Show
              </button>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
