// Recommendations: grouped by client, server and copy tool, each with its
// expected gain; copy or save a group as a script; Apply shows the preview
// (what changes from what to what) and the command that applies it with a
// backup and a rollback.

import { useEffect, useState } from 'react';
import type { PipefillApi } from '../../../../src/contract/api.js';
import type { Catalogue } from '../../../../src/contract/plan.js';
import type { RecommendationOut, RecommendResult } from '../../../../src/contract/recommend.js';
import { assessedClient } from '../../../../src/contract/recommend.js';
import { currentText } from '../../../../src/contract/recommendation.js';
import type { Report } from '../../../../src/contract/report.js';
import type { ClientProfileId } from '../../../../src/model/client-profiles.js';
import { DEFAULT_CLIENT } from '../../../../src/model/client-profiles.js';
import type { ServerProfileId } from '../../../../src/model/server-profiles.js';
import { formatDuration, formatRate } from '../../../../src/model/units.js';
import { download } from '../download.js';
import type { PlannerSettings } from '../state/planner.js';
import { grouped, scriptFor, scriptName } from '../state/recommendations.js';
import type { UiError } from '../state/use-cancellable-call.js';
import { toUiError } from '../state/use-cancellable-call.js';
import { ProfileSelect } from './profile-select.js';
import { Explained } from './explained.js';
import { adviceTestText } from '../../../../src/presentation/test-labels.js';
import { serverSeenText } from '../../../../src/presentation/summary.js';

export interface RecommendationsViewProps {
  readonly api: PipefillApi;
  readonly catalogue: Catalogue | undefined;
  readonly report: Report | undefined;
  readonly planner: PlannerSettings;
}

const APPLY_TARGET: Readonly<Record<RecommendationOut['platform'], string>> = {
  'windows-client': 'windows',
  'windows-server': 'windows',
  'copy-tool': 'windows',
  samba: 'samba --smb-conf /etc/samba/smb.conf',
  linux: 'linux',
  ontap: 'ontap',
  macos: 'macos',
};

export function RecommendationsView({ api, catalogue, report, planner }: RecommendationsViewProps) {
  // Opens on the client the assessment was for (its person's users), else the current Windows release.
  const [client, setClient] = useState<ClientProfileId>(report ? assessedClient(report) : DEFAULT_CLIENT);
  const [server, setServer] = useState<ServerProfileId>(report?.options.server ?? planner.server);
  const [result, setResult] = useState<RecommendResult | undefined>();
  const [error, setError] = useState<UiError | undefined>();
  const [preview, setPreview] = useState<RecommendationOut[] | undefined>();

  useEffect(() => {
    const path = report ? { report } : { bandwidth: `${planner.bandwidthBitsPerSecond}bit`, rtt: `${planner.rttMs}ms`, loss: `${planner.lossPercent}%` };
    api.recommend({ ...path, client, server }).then(
      (value) => {
        setResult(value);
        setError(undefined);
      },
      (caught: unknown) => setError(toUiError(caught)),
    );
  }, [api, report, planner, client, server]);

  return (
    <>
      <h2>Recommendations</h2>
      <section className="panel">
        <p className="hint">
          {report ? `For the path measured at ${report.target.share}.` : "For the Planner's link (no assessment yet)."}{' '}
          {result ? `${formatRate(result.link.bandwidthBitsPerSecond)}, ${result.link.rttMs.toFixed(1)} ms.` : ''}
        </p>
        <div className="fields">
          <div>
            <label htmlFor="rec-client">Client</label>
            <ProfileSelect id="rec-client" value={client} options={catalogue?.clients} onChange={setClient} />
          </div>
          <div>
            <label htmlFor="rec-server">Server</label>
            <ProfileSelect id="rec-server" value={server} options={catalogue?.servers} onChange={setServer} />
            {report && server === report.options.server && (
              // The list names a profile's defaults; the advice is for the server as the copies found it (its 16 credits, not 8192).
              <p className="hint" data-testid="rec-server-seen">
                As the copies found it: {serverSeenText(report, server)}.
              </p>
            )}
          </div>
        </div>
        {error && (
          <p className="error" role="alert">
            {error.message} {error.hint}
          </p>
        )}
        {result && result.recommendations.length === 0 && (
          <p data-testid="no-recommendations">Nothing to change: the model finds no setting that makes these copies faster on this path.</p>
        )}
      </section>
      {result &&
        grouped(result).map(({ group, items }) => <RecommendationGroup key={group} group={group} items={items} result={result} onApply={setPreview} />)}
      {result && preview && <ApplyPreview result={result} preview={preview} onClose={() => setPreview(undefined)} />}
    </>
  );
}

/** One group of changes (client, server, copy tool): each with its effect, and the group as a script or to apply. */
function RecommendationGroup({
  group,
  items,
  result,
  onApply,
}: {
  readonly group: string;
  readonly items: RecommendationOut[];
  readonly result: RecommendResult;
  readonly onApply: (items: RecommendationOut[]) => void;
}) {
  return (
    <section className="panel" data-testid={`group-${group}`}>
      <h3>{group[0]?.toUpperCase() + group.slice(1)}</h3>
      <table>
        <thead>
          <tr>
            <th>Setting</th>
            <th>Now</th>
            <th>Set to</th>
            <th>Speeds up</th>
            <th className="num">Before</th>
            <th className="num">After</th>
          </tr>
        </thead>
        <tbody>
          {items.map((r) => (
            <tr key={r.id}>
              <td>
                {r.knob}
                <Explained term={`Where ${r.knob} comes from`}>{`${r.source}${r.caution ? `. ${r.caution}` : ''}`}</Explained>
              </td>
              <td>{currentText(r)}</td>
              <td>{String(r.value)}</td>
              <td>{adviceTestText(r.test)}</td>
              <td className="num">{formatDuration(r.expectedSeconds.before * 1000)}</td>
              <td className="num">{formatDuration(r.expectedSeconds.after * 1000)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <div className="row">
        <button type="button" className="secondary" onClick={() => void navigator.clipboard?.writeText(scriptFor(result, items))}>
          Copy as a script
        </button>
        <button type="button" className="secondary" onClick={() => download(scriptName(items), scriptFor(result, items), 'text/plain')}>
          Save as a script
        </button>
        <button type="button" className="primary" onClick={() => onApply(items)}>
          Apply…
        </button>
      </div>
    </section>
  );
}

/** What applying a group changes, from what to what, and the command that applies it with a backup and a rollback. */
function ApplyPreview({
  result,
  preview,
  onClose,
}: {
  readonly result: RecommendResult;
  readonly preview: readonly RecommendationOut[];
  readonly onClose: () => void;
}) {
  return (
    <section className="panel" data-testid="apply-preview">
      <h3>Preview</h3>
      <ul>
        {preview.map((r) => (
          <li key={r.id}>
            {r.knob}: {currentText(r)} → {String(r.value)} ({r.platform})
          </li>
        ))}
      </ul>
      <p>Pipefill applies these from the command line, on the machine they belong to, with a backup, a check that the new values took, and a rollback:</p>
      <pre className="script">
        {[...new Set(preview.map((r) => `pipefill apply --target ${APPLY_TARGET[r.platform]} --from recommendations.json`))].join('\n')}
      </pre>
      <p className="hint">Save the recommendations as JSON for --from, or give it the assessment report.</p>
      <div className="row">
        <button
          type="button"
          className="secondary"
          onClick={() => download('recommendations.json', `${JSON.stringify(result, null, 2)}\n`, 'application/json')}
        >
          Save recommendations.json
        </button>
        <button type="button" className="secondary" onClick={onClose}>
          Close
        </button>
      </div>
    </section>
  );
}
