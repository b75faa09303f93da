// History: every run kept per site, a site's trend (each generation's rate,
// run by run), what changed since the run before, and readiness over time.

import { useMemo, useState } from 'react';
import type { PipefillApi } from '../../../../src/contract/api.js';
import type { CapacityResult } from '../../../../src/contract/capacity.js';
import type { Report } from '../../../../src/contract/report.js';
import { formatRate } from '../../../../src/model/units.js';
import { ChartCanvas } from '../charts/chart-canvas.js';
import type { SiteRow } from '../state/history.js';
import { localTimeText, runLabel, sitesOf, trendChart } from '../state/history.js';
import type { RunSummary } from '../../../../src/contract/history.js';
import type { UiError } from '../state/use-cancellable-call.js';
import type { SaveOutcome } from '../state/use-history.js';
import { useHistoryBrowser } from '../state/use-history.js';

export interface HistoryViewProps {
  readonly api: PipefillApi;
  readonly keep: boolean;
  /** False until the services have told (or saved) the choice: the box is disabled meanwhile. */
  readonly keepSettled: boolean;
  readonly onKeepChange: (keep: boolean) => void;
  readonly lastSave: SaveOutcome | undefined;
  readonly onShow: (report: Report) => void;
  readonly onShowCapacity: (result: CapacityResult) => void;
  /** The store setting: '' for this computer's, or a PostgreSQL address. */
  readonly storeAddress: string;
  readonly storeError: UiError | undefined;
  readonly onStoreChange: (address: string) => void;
}

export function HistoryView({
  api,
  keep,
  keepSettled,
  onKeepChange,
  lastSave,
  onShow,
  onShowCapacity,
  storeAddress,
  storeError,
  onStoreChange,
}: HistoryViewProps) {
  const history = useHistoryBrowser(api);
  const sites = useMemo(() => sitesOf(history.runs ?? []), [history.runs]);
  const siteRuns = useMemo(() => (history.runs ?? []).filter((run) => run.site === history.site), [history.runs, history.site]);
  const chart = useMemo(() => (history.trend && Object.keys(history.trend.generations).length > 0 ? trendChart(history.trend) : undefined), [history.trend]);

  return (
    <>
      <h2>History</h2>
      <section className="panel">
        <label>
          <input type="checkbox" checked={keep} disabled={!keepSettled} onChange={(e) => onKeepChange(e.target.checked)} /> Keep each finished assessment and
          capacity run in the site history
        </label>
        {lastSave &&
          ('error' in lastSave ? (
            <p className="error" role="alert">
              {lastSave.error.message} {lastSave.error.hint}
            </p>
          ) : (
            <p className="hint" data-testid="history-saved">
              {lastSave.created ? `The last run was kept as run ${lastSave.id}.` : `The last run was already kept as run ${lastSave.id}.`}
            </p>
          ))}
        {history.where && <p className="hint">Kept in {history.where}. No password is ever stored.</p>}
        <StoreForm storeAddress={storeAddress} onStoreChange={onStoreChange} />
        {storeError && (
          <p className="error" role="alert">
            {storeError.message} {storeError.hint}
          </p>
        )}
        {history.error && (
          <p className="error" role="alert">
            {history.error.message} {history.error.hint}
          </p>
        )}
      </section>
      {history.runs !== undefined && sites.length === 0 && <p>No runs kept yet: an assessment or a capacity run is kept here when it finishes.</p>}
      {sites.length > 0 && (
        <section className="panel">
          <h3>Sites</h3>
          <SitesTable sites={sites} selected={history.site} onSelect={history.setSite} />
        </section>
      )}
      {history.site !== undefined && history.trend && (
        <section className="panel">
          <h3>Trend of {siteRuns[0]?.share ?? history.site}</h3>
          {chart ? (
            <ChartCanvas config={chart} label={`Each generation's measured rate, run by run, at ${history.site}`} testId="chart-history-trend" height={300} />
          ) : (
            <p className="hint">No assessment of this site yet: its trend starts with the first.</p>
          )}
          <h4>Since the run before</h4>
          <ul data-testid="history-changes">
            {history.trend.changes.length === 0 ? (
              <li>Nothing the trend follows changed (or there is only one assessment).</li>
            ) : (
              history.trend.changes.map((change) => <li key={change}>{change}</li>)
            )}
          </ul>
          {history.trend.readiness.length > 0 && (
            <>
              <h4>Readiness over time</h4>
              <ul data-testid="history-readiness">
                {history.trend.readiness.map((verdict) => (
                  <li key={verdict.id}>
                    {runLabel(verdict.startedAt, verdict.id)}: {verdict.met ? 'met' : 'not met'}. {verdict.text}
                  </li>
                ))}
              </ul>
            </>
          )}
          <h4>Runs</h4>
          <RunsTable
            runs={siteRuns}
            onShow={(id) =>
              void history.open(id).then((document) => {
                if (document && 'report' in document) onShow(document.report);
                else if (document) onShowCapacity(document.capacity);
              })
            }
            onDelete={(id) => void history.remove(id)}
          />
        </section>
      )}
    </>
  );
}

/** The sites with runs kept, each to choose for its trend. */
function SitesTable({
  sites,
  selected,
  onSelect,
}: {
  readonly sites: readonly SiteRow[];
  readonly selected: string | undefined;
  readonly onSelect: (site: string) => void;
}) {
  return (
    <table data-testid="history-sites">
      <thead>
        <tr>
          <th>Site</th>
          <th>Runs</th>
          <th>Assessments</th>
          <th>Capacity runs</th>
          <th>Latest</th>
        </tr>
      </thead>
      <tbody>
        {sites.map((row) => (
          <tr key={row.site} aria-selected={row.site === selected}>
            <td>
              <button type="button" className="link" onClick={() => onSelect(row.site)} aria-pressed={row.site === selected}>
                {row.share}
              </button>
            </td>
            <td className="num">{row.runs}</td>
            <td className="num">{row.assessments}</td>
            <td className="num">{row.capacityRuns}</td>
            <td>{localTimeText(row.latest)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** A site's runs, each to show, or to delete after a second, explicit click. */
function RunsTable({
  runs,
  onShow,
  onDelete,
}: {
  readonly runs: readonly RunSummary[];
  readonly onShow: (id: number) => void;
  readonly onDelete: (id: number) => void;
}) {
  const [confirming, setConfirming] = useState<number | undefined>();
  return (
    <table data-testid="history-runs">
      <thead>
        <tr>
          <th>Run</th>
          <th>Kind</th>
          <th>Link</th>
          <th>By</th>
          <th>Summary</th>
          <th />
        </tr>
      </thead>
      <tbody>
        {runs.map((run) => (
          <tr key={run.id}>
            <td>{runLabel(run.startedAt, run.id)}</td>
            <td>{run.kind === 'assessment' ? 'Assessment' : 'Capacity'}</td>
            <td className="num">
              {run.linkMbps === null ? '' : `${formatRate(run.linkMbps * 1e6)}${run.rttMs === null ? '' : `, ${run.rttMs.toFixed(1)} ms`}`}
            </td>
            <td>
              {run.ranBy}@{run.machine}
            </td>
            <td>{run.headline}</td>
            <td className="actions">
              <button type="button" className="secondary" aria-label={`Show run ${run.id}`} onClick={() => onShow(run.id)}>
                Show
              </button>
              {confirming === run.id ? (
                <button
                  type="button"
                  className="secondary danger"
                  onClick={() => {
                    setConfirming(undefined);
                    onDelete(run.id);
                  }}
                >
                  Delete run {run.id} for good
                </button>
              ) : (
                <button type="button" className="secondary" aria-label={`Delete run ${run.id}`} onClick={() => setConfirming(run.id)}>
                  Delete
                </button>
              )}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** Where runs are kept: this computer, or a team's PostgreSQL. */
function StoreForm({ storeAddress, onStoreChange }: { readonly storeAddress: string; readonly onStoreChange: (address: string) => void }) {
  const [typedStore, setTypedStore] = useState(storeAddress);
  return (
    <form
      className="inline"
      onSubmit={(event) => {
        event.preventDefault();
        onStoreChange(typedStore);
      }}
    >
      <label htmlFor="history-store">Where runs are kept</label>
      <input
        id="history-store"
        type="text"
        value={typedStore}
        placeholder="this computer"
        aria-describedby="history-store-hint"
        onChange={(e) => setTypedStore(e.target.value)}
      />
      <button type="submit" className="secondary">
        Use this store
      </button>
      <p className="hint" id="history-store-hint">
        Empty: this computer. A team: postgres://user@host/database, its password in PGPASSWORD or ~/.pgpass.
      </p>
    </form>
  );
}
