// Capacity: how many people can copy at once. A form (share, generation,
// steps, target), the run live with Cancel, then the curve and the waits
// beside the model's, every step in a table, the knee and the verdict.

import { useMemo, useState } from 'react';
import type { CapacityResult } from '../../../../src/contract/capacity.js';
import type { Report } from '../../../../src/contract/report.js';
import type { HostInfo } from '../../../../src/contract/host-info.js';
import type { Catalogue } from '../../../../src/contract/plan.js';
import { CAPACITY_OPS } from '../../../../src/model/capacity.js';
import type { CapacityOp } from '../../../../src/model/capacity.js';
import { capacityPlanText } from '../../../../src/presentation/run-plan.js';
import { capacityServerHint, kneeText, modelServerText } from '../../../../src/presentation/capacity-text.js';
import { ChartCanvas } from '../charts/chart-canvas.js';
import type { Exporter } from '../state/use-export.js';
import { ExportButtons } from './export-buttons.js';
import { PlanConfirmation } from './plan-confirmation.js';
import { Explained, Term } from './explained.js';
import { TERMS } from '../../../../src/presentation/glossary.js';
import type { CapacityForm, CapacityRunState } from '../state/capacity.js';
import { capacityFormErrors, capacityFormFor, curveChart, latencyChart, liveChart, toCapacityInput } from '../state/capacity.js';
import type { CallPhase, UiError } from '../state/use-cancellable-call.js';
import { ProfileSelect } from './profile-select.js';

export interface CapacityViewProps {
  readonly catalogue: Catalogue | undefined;
  readonly host: HostInfo | undefined;
  readonly phase: CallPhase;
  readonly run: CapacityRunState;
  readonly result: CapacityResult | undefined;
  readonly error: UiError | undefined;
  readonly onStart: (form: CapacityForm) => void;
  readonly exporter: Exporter;
  readonly onCancel: () => void;
  /** The share's assessment, where one was made in this session: the form starts from it. */
  readonly report?: Report | undefined;
}

const number = (value: number | null | undefined, digits = 1) => (value === null || value === undefined ? '–' : value.toFixed(digits));

function Results({ result, exporter }: { readonly result: CapacityResult; readonly exporter: Exporter }) {
  const curve = useMemo(() => curveChart(result), [result]);
  const waits = useMemo(() => latencyChart(result), [result]);
  const server = modelServerText(result);
  return (
    <>
      <section className="panel">
        {result.readiness && (
          <p className={result.readiness.met ? 'headline met' : 'headline not-met'} data-testid="capacity-readiness">
            {result.readiness.text}
          </p>
        )}
        <p data-testid="capacity-knee">
          {kneeText(result)}
          <Explained term="the knee">{TERMS.knee.text}</Explained>
        </p>
        {server !== '' && (
          <p className="hint" data-testid="capacity-model-server">
            {server}
          </p>
        )}
        {result.failures.map((failure) => (
          <p key={failure.user} className="error">
            Person {failure.user + 1} stopped during the step of {failure.step}: {failure.message}
          </p>
        ))}
        <ExportButtons exporter={exporter} document={result} what="capacity run" />
      </section>
      <div className="grid2">
        <section className="panel">
          <h3>Throughput against people</h3>
          <ChartCanvas
            config={curve}
            label="Aggregate and per-person throughput against the number of people, measured and modelled"
            testId="chart-capacity-curve"
          />
        </section>
        <section className="panel">
          <h3>What a person waits</h3>
          <ChartCanvas config={waits} label="SMB2 ECHO round trip against the number of people, measured and modelled" testId="chart-capacity-latency" />
        </section>
      </div>
      <section className="panel">
        <table data-testid="capacity-table">
          <thead>
            <tr>
              <th>people</th>
              <th>Mb/s</th>
              <th>model</th>
              <th>each min / median / max</th>
              <th>
                <Term label="fairness" text={TERMS.fairness.text} />
              </th>
              <th>
                <Term label="round trip ms, median / p95" text={TERMS.echo.text} />
              </th>
              <th>added ms (model)</th>
              <th>what limits (model)</th>
            </tr>
          </thead>
          <tbody>
            {result.steps.map((step) => (
              <tr key={step.users}>
                <td>{step.users}</td>
                <td>{number(step.aggregateMbps)}</td>
                <td>
                  {number(step.expected?.aggregateMbps)}
                  {step.expected?.runToRunMbps ? (
                    <>
                      {` ±${number(step.expected.runToRunMbps)}`}
                      <Explained term="the ± beside the model">
                        How far one run strays from the model&apos;s figure: which of the people who join lands in step with another&apos;s burst is chance.
                      </Explained>
                    </>
                  ) : (
                    ''
                  )}
                </td>
                <td>
                  {number(step.minMbps, 2)} / {number(step.medianMbps, 2)} / {number(step.maxMbps, 2)}
                </td>
                <td>{number(step.fairness, 2)}</td>
                <td>
                  {number(step.echo.p50Ms)} / {number(step.echo.p95Ms)}
                </td>
                <td>
                  {number(step.addedLatencyMs)} ({number(step.expected?.addedLatencyMs)})
                </td>
                <td>{step.expected?.limit ?? ''}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
    </>
  );
}

/** What each person copies, how many people step by step, how long each step is measured, and the target. */
function LoadFields({
  form,
  errors,
  catalogue,
  set,
  serverHint,
}: {
  readonly form: CapacityForm;
  readonly serverHint: string | undefined;
  readonly errors: ReturnType<typeof capacityFormErrors>;
  readonly catalogue: Catalogue | undefined;
  readonly set: <K extends keyof CapacityForm>(key: K, value: CapacityForm[K]) => void;
}) {
  return (
    <>
      <label htmlFor="capacity-profile">Each person copies as</label>
      <ProfileSelect id="capacity-profile" value={form.profile} options={catalogue?.clients} onChange={(profile) => set('profile', profile)} />
      <label htmlFor="capacity-server">The server is</label>
      <ProfileSelect id="capacity-server" value={form.server} options={catalogue?.servers} onChange={(server) => set('server', server)} />
      {serverHint && (
        <p className="hint" data-testid="capacity-server-seen">
          {serverHint}
        </p>
      )}
      <label htmlFor="capacity-op">Copies</label>
      <select
        id="capacity-op"
        value={form.op}
        onChange={(e) => set('op', (CAPACITY_OPS as readonly string[]).includes(e.target.value) ? (e.target.value as CapacityOp) : 'read')}
      >
        <option value="read">read from the share</option>
        <option value="write">write to the share</option>
        <option value="mixed">half read, half write</option>
      </select>
      <label htmlFor="capacity-clients">People at once, step by step</label>
      <input id="capacity-clients" type="text" value={form.clients} onChange={(e) => set('clients', e.target.value)} />
      {errors.clients && <p className="error">{errors.clients}</p>}
      <label htmlFor="capacity-seconds">Seconds measured per step (after a warm-up)</label>
      <input id="capacity-seconds" type="text" value={form.seconds} onChange={(e) => set('seconds', e.target.value)} />
      {errors.seconds && <p className="error">{errors.seconds}</p>}
      <fieldset className="checks">
        <legend>Target (optional)</legend>
        <label>
          people <input aria-label="target people" type="text" size={4} value={form.targetUsers} onChange={(e) => set('targetUsers', e.target.value)} />
        </label>
        <label>
          Mb/s each <input aria-label="target Mb/s each" type="text" size={4} value={form.targetMbps} onChange={(e) => set('targetMbps', e.target.value)} />
        </label>
        <label>
          ms added at most <input aria-label="target ms added" type="text" size={4} value={form.targetMs} onChange={(e) => set('targetMs', e.target.value)} />
        </label>
      </fieldset>
      {errors.target && <p className="error">{errors.target}</p>}
    </>
  );
}

export function CapacityView({ catalogue, host, phase, run, result, error, exporter, onStart, onCancel, report }: CapacityViewProps) {
  const [form, setForm] = useState<CapacityForm>(() => capacityFormFor(report));
  const [touched, setTouched] = useState(false);
  const errors = useMemo(() => capacityFormErrors(form), [form]);
  const live = useMemo(() => liveChart(run), [run]);
  // Before the first byte the person reads how long the link is loaded and what is written, and starts it (issue 38).
  const [plan, setPlan] = useState<string | undefined>();
  const set = <K extends keyof CapacityForm>(key: K, value: CapacityForm[K]) => {
    setPlan(undefined);
    setForm((current) => ({ ...current, [key]: value }));
  };
  const demo = host?.demo;
  const submit = () => {
    setTouched(true);
    if (Object.keys(errors).length > 0) return;
    try {
      setPlan(capacityPlanText(toCapacityInput(form)));
    } catch {
      // The form's own checks name what is wrong; a plan that cannot be made starts nothing.
      setPlan(undefined);
    }
  };
  return (
    <>
      <h2>Capacity</h2>
      <section className="panel">
        <form
          onSubmit={(event) => {
            event.preventDefault();
            submit();
          }}
        >
          <label htmlFor="capacity-share">Share</label>
          <input
            id="capacity-share"
            type="text"
            value={form.share}
            placeholder="\\server\share or //server/share"
            onChange={(e) => set('share', e.target.value)}
          />
          {(touched || form.share !== '') && errors.share && <p className="error">{errors.share}</p>}
          <label htmlFor="capacity-user">User</label>
          <input id="capacity-user" type="text" autoComplete="username" value={form.user} onChange={(e) => set('user', e.target.value)} />
          {touched && errors.user && <p className="error">{errors.user}</p>}
          <label htmlFor="capacity-password">Password</label>
          <input
            id="capacity-password"
            type="password"
            autoComplete="current-password"
            value={form.password}
            onChange={(e) => set('password', e.target.value)}
          />
          <label htmlFor="capacity-iperf">iperf3 server (optional)</label>
          <input id="capacity-iperf" type="text" value={form.iperf} placeholder="host or host:port" onChange={(e) => set('iperf', e.target.value)} />
          {form.iperf !== '' && errors.iperf && <p className="error">{errors.iperf}</p>}
          <LoadFields form={form} errors={errors} catalogue={catalogue} set={set} serverHint={capacityServerHint(form, report)} />
          {plan !== undefined && phase !== 'running' && (
            <PlanConfirmation
              plan={plan}
              testId="capacity-plan"
              onStart={() => {
                setPlan(undefined);
                onStart(form);
              }}
              onChange={() => setPlan(undefined)}
            />
          )}
          <div className="row">
            {phase === 'running' ? (
              <button type="button" className="primary" onClick={onCancel}>
                Cancel
              </button>
            ) : plan === undefined ? (
              <button type="submit" className="primary">
                Measure capacity
              </button>
            ) : null}
            {demo && phase !== 'running' && (
              <button
                type="button"
                className="secondary"
                onClick={() => {
                  setPlan(undefined);
                  setForm((current) => ({ ...current, share: demo.share, user: demo.user, password: demo.password, iperf: demo.iperf ?? '' }));
                }}
              >
                Use the demo share
              </button>
            )}
          </div>
        </form>
      </section>
      <section className="panel" aria-live="polite">
        <label htmlFor="capacity-progress">{phase === 'running' ? run.step : 'Progress'}</label>
        <progress id="capacity-progress" max={1} value={run.fraction} data-testid="capacity-progress" />
        {phase === 'cancelled' && <p className="hint">Cancelled. Everyone was logged off and the scratch folder removed from the share.</p>}
        {phase === 'failed' && error && (
          <p className="error" role="alert">
            {error.message} {error.hint}
          </p>
        )}
        <ChartCanvas config={live} label="Everyone's throughput while the run goes" height={180} testId="chart-capacity-live" />
      </section>
      {result && <Results result={result} exporter={exporter} />}
    </>
  );
}
