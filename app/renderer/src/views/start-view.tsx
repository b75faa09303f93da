// Start: where to test and as whom; or plan without a share.

import { useMemo, useState } from 'react';
import type { HostInfo } from '../../../../src/contract/host-info.js';
import { describeDemo } from '../../../../src/contract/host-info.js';
import type { Catalogue } from '../../../../src/contract/plan.js';
import type { AssessInput } from '../../../../src/contract/report.js';
import type { ClientProfileId } from '../../../../src/model/client-profiles.js';
import { startFormErrors } from '../state/start-form.js';
import type { StartForm } from '../state/start-form.js';
import { comparable, COPY_TOOL_THREADS, toAssessInput } from '../state/start-form.js';
import { ProfileSelect } from './profile-select.js';
import { PlanConfirmation } from './plan-confirmation.js';
import { assessmentPlan, assessmentPlanText } from '../../../../src/presentation/run-plan.js';

export interface StartViewProps {
  readonly catalogue: Catalogue | undefined;
  readonly host: HostInfo | undefined;
  /** The form, kept by the app across views: Back to Start after a run or an error shows what was typed. */
  readonly form: StartForm;
  readonly onFormChange: (form: StartForm) => void;
  readonly onAssess: (input: AssessInput) => void;
  readonly onPlan: () => void;
}

export function StartView({ catalogue, host, form, onFormChange, onAssess, onPlan }: StartViewProps) {
  const [touched, setTouched] = useState(false);
  const errors = useMemo(() => startFormErrors(form), [form]);
  // Any change to the form takes back a plan shown for what it held before.
  const set = <K extends keyof StartForm>(key: K, value: StartForm[K]) => {
    setPlan(undefined);
    onFormChange({ ...form, [key]: value });
  };
  // Before the first byte the person reads what the run will do, and starts it (issue 38).
  const [plan, setPlan] = useState<string | undefined>();
  const submit = () => {
    setTouched(true);
    if (Object.keys(errors).length > 0) return;
    try {
      setPlan(assessmentPlanText(assessmentPlan(toAssessInput(form))));
    } catch {
      // The form's own checks name what is wrong; a plan that cannot be made starts nothing.
      setPlan(undefined);
    }
  };
  const demo = host?.demo;

  return (
    <>
      <h2>Start</h2>
      <section className="panel">
        <form
          onSubmit={(event) => {
            event.preventDefault();
            submit();
          }}
        >
          {/* A newcomer with no share of their own starts here: the demo share fills the form. */}
          {demo && (
            <div className="row">
              <button
                type="button"
                className="secondary"
                onClick={() => {
                  setPlan(undefined);
                  onFormChange({ ...form, share: demo.share, user: demo.user, password: demo.password, iperf: demo.iperf ?? '' });
                }}
              >
                Use the demo share
              </button>
              <p className="hint" data-testid="demo-description">
                {describeDemo(demo)}
              </p>
            </div>
          )}
          <label htmlFor="share">Share</label>
          <input
            id="share"
            type="text"
            value={form.share}
            placeholder="\\server\share, //server/share or smb://server/share"
            onChange={(e) => set('share', e.target.value)}
            aria-invalid={errors.share !== undefined}
            aria-describedby="share-error"
          />
          {(touched || form.share !== '') && errors.share && (
            <p className="error" id="share-error">
              {errors.share}
            </p>
          )}
          <label htmlFor="user">User</label>
          <input id="user" type="text" autoComplete="username" value={form.user} onChange={(e) => set('user', e.target.value)} />
          {touched && errors.user && <p className="error">{errors.user}</p>}
          <label htmlFor="password">Password</label>
          <input id="password" type="password" autoComplete="current-password" value={form.password} onChange={(e) => set('password', e.target.value)} />
          <div className="checks">
            <label>
              <input type="checkbox" checked={form.keepPassword} onChange={(e) => set('keepPassword', e.target.checked)} /> Keep it in this form after the run
              (until this page closes)
            </label>
          </div>
          <p className="hint">
            Used for this run only; never saved and never written to a report.{' '}
            {host?.kerberos ? (
              <span data-testid="current-logon">
                Leave it empty to log on as you are: your Kerberos ticket for {host.kerberos.principal} (name the server by its DNS name, not its address).
              </span>
            ) : (
              'Leave it empty to log on with your own Kerberos ticket (your domain logon).'
            )}
          </p>
          <label htmlFor="domain">Domain (optional)</label>
          <input id="domain" type="text" value={form.domain} onChange={(e) => set('domain', e.target.value)} />
          <label htmlFor="iperf">iperf3 server (optional)</label>
          <input id="iperf" type="text" value={form.iperf} placeholder="host or host:port" onChange={(e) => set('iperf', e.target.value)} />
          {form.iperf !== '' && errors.iperf && <p className="error">{errors.iperf}</p>}
          <p className="hint">Without one, bandwidth comes from Pipefill's deepest SMB read pipeline.</p>
          <CopyFields form={form} catalogue={catalogue} set={set} />
          {plan === undefined ? (
            <div className="row">
              <button type="submit" className="primary">
                Assess this share
              </button>
              <button type="button" className="secondary" onClick={onPlan}>
                Plan without a share
              </button>
            </div>
          ) : (
            <PlanConfirmation plan={plan} testId="run-plan" onStart={() => onAssess(toAssessInput(form))} onChange={() => setPlan(undefined)} />
          )}
        </form>
      </section>
    </>
  );
}

/** How the run copies: the person's client (and others to compare), the server, signing, encryption, the copy tool, quick or not. */
function CopyFields({
  form,
  catalogue,
  set,
}: {
  readonly form: StartForm;
  readonly catalogue: Catalogue | undefined;
  readonly set: <K extends keyof StartForm>(key: K, value: StartForm[K]) => void;
}) {
  const toggleCompared = (id: ClientProfileId) => set('compare', form.compare.includes(id) ? form.compare.filter((p) => p !== id) : [...form.compare, id]);
  const clients = catalogue?.clients.filter((client) => client.id !== 'pipefill-max');
  const compared = clients?.filter((client) => comparable([client.id], form.client).length > 0);
  return (
    <>
      <label htmlFor="client">Your users' client</label>
      <ProfileSelect id="client" value={form.client} options={clients} onChange={(client) => set('client', client)} />
      <p className="hint">Pipefill copies as this client does, and as its own best pipeline does: what this path allows.</p>
      <details>
        <summary>Compare with other generations (a readiness check)</summary>
        <fieldset className="checks">
          <legend>Also test</legend>
          {compared?.map((client) => (
            <label key={client.id}>
              <input type="checkbox" checked={form.compare.includes(client.id)} onChange={() => toggleCompared(client.id)} />
              {client.label}
            </label>
          ))}
        </fieldset>
      </details>
      <label htmlFor="server">The server is</label>
      <select id="server" value={form.server} onChange={(e) => set('server', e.target.value as StartForm['server'])}>
        <option value="recognise">Recognised from what it sends (Samba, a Windows release)</option>
        {catalogue?.servers.map((server) => (
          <option key={server.id} value={server.id}>
            {server.label}
          </option>
        ))}
      </select>
      <label htmlFor="signing">Signing</label>
      <select id="signing" value={form.signing} onChange={(e) => set('signing', e.target.value === 'required' ? 'required' : 'auto')}>
        <option value="auto">Automatic (where the server or the client requires it)</option>
        <option value="required">Every message (as Windows 11 24H2 does)</option>
      </select>
      <label htmlFor="encryption">Encryption</label>
      <select
        id="encryption"
        value={form.encryption}
        onChange={(e) => set('encryption', e.target.value === 'required' ? 'required' : e.target.value === 'off' ? 'off' : 'auto')}
      >
        <option value="auto">Automatic (where the server or the share requires it)</option>
        <option value="required">Every message (SMB 3)</option>
        <option value="off">Off (stop where encryption is required)</option>
      </select>
      <label htmlFor="copy-tool">Copy tool</label>
      <select id="copy-tool" value={form.threads} onChange={(e) => set('threads', Number(e.target.value))}>
        {COPY_TOOL_THREADS.map((threads) => (
          <option key={threads} value={threads}>
            {threads === 1 ? 'Explorer (one file at a time)' : `robocopy /MT:${threads} (${threads} files at once)`}
          </option>
        ))}
      </select>
      <div className="checks">
        <label>
          <input type="checkbox" checked={form.quick} onChange={(e) => set('quick', e.target.checked)} /> Quick run (about 15 s of copies instead of a minute)
        </label>
      </div>
    </>
  );
}
