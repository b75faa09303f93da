// The app's frame: navigation between the views, the theme, and the state
// the views share (the catalogue, the latest report, the planner settings).
// Views get data and callbacks; the numbers come from src/contract,
// src/model and ./state.

import { useMemo, useState } from 'react';
import type { PipefillApi } from '../../../src/contract/api.js';
import { catalogue as localCatalogue } from '../../../src/contract/plan.js';
import type { Report } from '../../../src/contract/report.js';
import type { PlannerSettings } from './state/planner.js';
import { mergeCapacityRuns, mergeReports } from './state/compare.js';
import { keepOpen } from './state/open-documents.js';
import { settingsFromHash, settingsFromPreset } from './state/planner.js';
import { toCapacityInput } from './state/capacity.js';
import type { StartForm } from './state/start-form.js';
import { DEFAULT_FORM, formAfterRun } from './state/start-form.js';
import { useAssessment } from './state/use-assessment.js';
import { useCapacity } from './state/use-capacity.js';
import { useCapture } from './state/use-capture.js';
import { useExport } from './state/use-export.js';
import { useHistorySaving, useHistoryStoreSetting } from './state/use-history.js';
import { CapacityView } from './views/capacity-view.js';
import { CaptureView } from './views/capture-view.js';
import { HistoryView } from './views/history-view.js';
import { PlannerView } from './views/planner-view.js';
import { RecommendationsView } from './views/recommendations-view.js';
import { ReportsView } from './views/reports-view.js';
import { ResultsView } from './views/results-view.js';
import { RunView } from './views/run-view.js';
import { ViewBoundary } from './views/view-boundary.js';
import { Nav, NoSession, useRememberedView, useServiceInfo, useSharedPlanAddress, useTheme } from './app-frame.js';
import { useOpenRuns } from './state/use-open-runs.js';
import { StartView } from './views/start-view.js';

const VIEWS = ['start', 'run', 'results', 'recommendations', 'capacity', 'planner', 'reports', 'history', 'capture'] as const;
type View = (typeof VIEWS)[number];
const VIEW_LABELS: Readonly<Record<View, string>> = {
  start: 'Start',
  run: 'Run',
  results: 'Results',
  recommendations: 'Recommendations',
  capacity: 'Capacity',
  planner: 'Planner',
  reports: 'Reports',
  history: 'History',
  capture: 'Capture',
};

const DEFAULT_PLANNER = settingsFromPreset('europe-continental', 'win2012plus') ?? {
  bandwidthBitsPerSecond: 33e6,
  rttMs: 109,
  lossPercent: 0,
  server: 'win2012plus' as const,
};

/** A report opened from Reports or History: shown in Results, and kept open across reloads. */
const showReportOf = (api: PipefillApi, setReport: (report: Report) => void, toResults: () => void) => (report: Report) => {
  setReport(report);
  toResults();
  keepOpen(api, report, true);
};

export function App({ api }: { readonly api: PipefillApi }) {
  const sharedPlan = useMemo(() => settingsFromHash(window.location.hash), []);
  const [view, setView] = useRememberedView<View>(VIEWS, 'start', sharedPlan ? 'planner' : undefined);
  const [theme, setTheme] = useTheme();
  const [planner, setPlanner] = useState<PlannerSettings>(sharedPlan ?? DEFAULT_PLANNER);
  const [startForm, setStartForm] = useState<StartForm>(DEFAULT_FORM);
  const assessment = useAssessment(api);
  const capacity = useCapacity(api);
  const capture = useCapture(api);
  const { reports, setReports, capacityRuns, setCapacityRuns, addOpened } = useOpenRuns(api, assessment.setReport, capacity.setResult);
  const history = useHistorySaving(api);
  const exporter = useExport(api);
  const historyStore = useHistoryStoreSetting(api);
  // The Planner needs no service: its presets and the model run in the page.
  const plannerCatalogue = useMemo(() => localCatalogue(), []);

  const { catalogue, host, loadError } = useServiceInfo(api);

  useSharedPlanAddress(planner, view === 'planner');

  const showReport = showReportOf(api, assessment.setReport, () => setView('results'));

  // A page with no session (a spent or expired address, a service restarted) can do nothing: it says so, once,
  // and how to get a page that can, instead of a form that would fail at every step.
  if (loadError?.kind === 'unauthorised') return <NoSession error={loadError} />;

  return (
    <div className="app">
      <Nav views={VIEWS} labels={VIEW_LABELS} view={view} onView={setView} theme={theme} onTheme={setTheme} host={host} />
      <main>
        {loadError && (
          <p className="error" role="alert">
            {loadError.message} {loadError.hint}
          </p>
        )}
        <ViewBoundary key={view} name={VIEW_LABELS[view]} onLeave={() => setView('start')}>
          {view === 'start' && (
            <StartView
              catalogue={catalogue}
              host={host}
              form={startForm}
              onFormChange={setStartForm}
              onPlan={() => setView('planner')}
              onAssess={(input) => {
                setStartForm(formAfterRun);
                setView('run');
                void assessment.start(input).then((report) => {
                  if (!report) return;
                  setReports((current) => mergeReports(current, [report]));
                  void history.save(report);
                });
              }}
            />
          )}
          {view === 'run' && (
            <RunView
              phase={assessment.phase}
              run={assessment.run}
              error={assessment.error}
              onCancel={assessment.cancel}
              onResults={() => setView('results')}
              onStart={() => setView('start')}
            />
          )}
          {view === 'results' && <ResultsView report={assessment.report} exporter={exporter} onStart={() => setView('start')} />}
          {view === 'recommendations' && <RecommendationsView api={api} catalogue={catalogue} report={assessment.report} planner={planner} />}
          {view === 'capacity' && (
            <CapacityView
              report={assessment.report}
              catalogue={catalogue}
              host={host}
              phase={capacity.phase}
              run={capacity.run}
              result={capacity.result}
              error={capacity.error}
              exporter={exporter}
              onStart={(form) =>
                void capacity.start(toCapacityInput(form)).then((result) => {
                  // The Reports view's readiness review carries it beside the share's assessment.
                  if (!result) return;
                  setCapacityRuns((current) => mergeCapacityRuns(current, [result]));
                  void history.save(result);
                })
              }
              onCancel={capacity.cancel}
            />
          )}
          {view === 'planner' && <PlannerView catalogue={plannerCatalogue} settings={planner} onChange={setPlanner} />}
          {view === 'reports' && <ReportsView reports={reports} capacityRuns={capacityRuns} onOpen={addOpened} onShow={showReport} />}
          {view === 'capture' && <CaptureView capture={capture} />}
          {view === 'history' && (
            <HistoryView
              // A new store, or the remembered address arriving from the services: list it afresh.
              key={`${historyStore.where ?? 'default'} ${historyStore.address}`}
              api={api}
              keep={history.keep}
              keepSettled={history.keepSettled}
              onKeepChange={(keep) => void history.setKeep(keep)}
              lastSave={history.lastSave}
              onShow={showReport}
              onShowCapacity={(result) => {
                capacity.setResult(result);
                setCapacityRuns((current) => mergeCapacityRuns(current, [result]));
                setView('capacity');
                keepOpen(api, result, true);
              }}
              storeAddress={historyStore.address}
              storeError={historyStore.error}
              onStoreChange={(address) => void historyStore.apply(address)}
            />
          )}
        </ViewBoundary>
      </main>
    </div>
  );
}
