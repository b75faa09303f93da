// The Capacity view's state: the form and the contract input it becomes,
// the live run (progress events in, a series of everyone's rate out), and
// the charts of a finished run (the curve and the waits, each with the
// model's). Pure.

import type { ChartConfiguration } from 'chart.js';
import type { CapacityInput, CapacityResult } from '../../../../src/contract/capacity.js';
import type { ProgressEvent } from '../../../../src/contract/copy-test.js';
import { MAX_CAPACITY_USERS } from '../../../../src/model/capacity.js';
import type { CapacityOp } from '../../../../src/model/capacity.js';
import type { ClientProfileId } from '../../../../src/model/client-profiles.js';
import type { ServerProfileId } from '../../../../src/model/server-profiles.js';
import type { Report } from '../../../../src/contract/report.js';
import { assessedClient } from '../../../../src/contract/recommend.js';
import { loginErrors, loginInput } from './start-form.js';

export interface CapacityForm {
  readonly share: string;
  readonly user: string;
  readonly password: string;
  readonly domain: string;
  readonly iperf: string;
  readonly profile: ClientProfileId;
  readonly server: ServerProfileId;
  readonly op: CapacityOp;
  /** `1,2,4,8,16,32` as typed. */
  readonly clients: string;
  readonly seconds: string;
  /** The readiness target; empty fields: none. */
  readonly targetUsers: string;
  readonly targetMbps: string;
  readonly targetMs: string;
}

export const DEFAULT_CAPACITY_FORM: CapacityForm = {
  share: '',
  user: '',
  password: '',
  domain: '',
  iperf: '',
  profile: 'win10-smb3',
  server: 'samba',
  op: 'read',
  clients: '1,2,4,8,16,32',
  seconds: '10',
  targetUsers: '30',
  targetMbps: '5',
  targetMs: '50',
};

/**
 * The form for the share just assessed: its share, login, the person's own
 * client and the server the assessment found, so Capacity starts from the
 * same assumptions as the answer it follows (not Windows 10 and a default
 * Samba beside a report that recognised another). The password is never
 * carried over: reports hold none.
 */
export function capacityFormFor(report: Report | undefined): CapacityForm {
  if (!report) return DEFAULT_CAPACITY_FORM;
  return {
    ...DEFAULT_CAPACITY_FORM,
    share: report.target.share,
    user: report.target.user,
    domain: report.target.domain ?? '',
    profile: assessedClient(report),
    server: report.options.server,
  };
}

type Field = 'share' | 'user' | 'iperf' | 'clients' | 'seconds' | 'target';

/** The steps typed, or why they cannot be. */
export function parseSteps(text: string): number[] | string {
  const parts = text.split(',').map((part) => part.trim());
  if (parts.some((part) => !/^\d+$/.test(part))) return 'Give the steps as whole numbers of people, e.g. 1,2,4,8,16,32.';
  const steps = parts.map(Number);
  if (steps.some((users) => users < 1 || users > MAX_CAPACITY_USERS)) return `Each step is 1 to ${MAX_CAPACITY_USERS} people.`;
  if (steps.some((users, index) => index > 0 && users <= (steps[index - 1] ?? 0))) return 'The steps must rise: 1,2,4,8,16,32.';
  if (steps.length > 12) return 'At most 12 steps.';
  return steps;
}

const positive = (text: string) => /^\d+(\.\d+)?$/.test(text.trim()) && Number(text) > 0;

export function capacityFormErrors(form: CapacityForm): Partial<Record<Field, string>> {
  const errors: Partial<Record<Field, string>> = loginErrors(form);
  const steps = parseSteps(form.clients);
  if (typeof steps === 'string') errors.clients = steps;
  if (!positive(form.seconds) || Number(form.seconds) < 1 || Number(form.seconds) > 600) errors.seconds = 'Give each step 1 to 600 seconds.';
  const target = [form.targetUsers, form.targetMbps, form.targetMs];
  if (
    target.some((text) => text.trim() !== '') &&
    !(/^\d+$/.test(form.targetUsers.trim()) && Number(form.targetUsers) >= 1 && positive(form.targetMbps) && /^\d+(\.\d+)?$/.test(form.targetMs.trim()))
  ) {
    errors.target = 'A target is a number of people (whole), Mb/s each and ms added at most; or leave all three empty.';
  }
  return errors;
}

export function toCapacityInput(form: CapacityForm): CapacityInput {
  const steps = parseSteps(form.clients);
  const hasTarget = form.targetUsers.trim() !== '';
  return {
    ...loginInput(form),
    profile: form.profile,
    server: form.server,
    op: form.op,
    clients: typeof steps === 'string' ? [] : steps,
    seconds: Number(form.seconds),
    ...(hasTarget ? { target: { users: Number(form.targetUsers), perUserMbps: Number(form.targetMbps), addedLatencyMs: Number(form.targetMs) } } : {}),
  };
}

export interface CapacityRunState {
  readonly step: string;
  readonly fraction: number;
  /** Everyone's rate together as the run reports it, against seconds since the start. */
  readonly live: readonly { readonly tSeconds: number; readonly mbps: number }[];
  readonly startedAtMs: number | undefined;
}

export const INITIAL_CAPACITY_RUN: CapacityRunState = { step: 'Starting…', fraction: 0, live: [], startedAtMs: undefined };

const MAX_LIVE_POINTS = 2_000;

export function applyCapacityProgress(state: CapacityRunState, event: ProgressEvent, nowMs: number): CapacityRunState {
  const startedAtMs = state.startedAtMs ?? nowMs;
  const live = event.live ? [...state.live, { tSeconds: (nowMs - startedAtMs) / 1000, mbps: event.live.mbps }].slice(-MAX_LIVE_POINTS) : state.live;
  return { step: event.step, fraction: event.fraction ?? state.fraction, live, startedAtMs };
}

const MEASURED = '#d9480f';
const MODEL = '#1c7ed6';
const EACH = '#2f9e44';

const line = (label: string, colour: string, points: readonly { x: number; y: number | null }[], dashed = false) => ({
  label,
  data: points.filter((point): point is { x: number; y: number } => point.y !== null),
  borderColor: colour,
  backgroundColor: colour,
  borderDash: dashed ? [6, 4] : [],
  pointRadius: 3,
  borderWidth: 2,
});

/** Everyone together and each person (median), measured, against the model's, by people. */
export function curveChart(result: CapacityResult): ChartConfiguration {
  return {
    type: 'line',
    data: {
      datasets: [
        line(
          'everyone, measured (Mb/s)',
          MEASURED,
          result.steps.map((step) => ({ x: step.users, y: step.aggregateMbps })),
        ),
        line(
          'everyone, model',
          MODEL,
          result.steps.map((step) => ({ x: step.users, y: step.expected?.aggregateMbps ?? null })),
          true,
        ),
        line(
          'each person (median), measured',
          EACH,
          result.steps.map((step) => ({ x: step.users, y: step.medianMbps })),
        ),
        line(
          'each person, model',
          EACH,
          result.steps.map((step) => ({ x: step.users, y: step.expected?.perUserMbps ?? null })),
          true,
        ),
      ],
    },
    options: {
      parsing: false,
      scales: {
        x: { type: 'linear', title: { display: true, text: 'people copying at once' } },
        y: { beginAtZero: true, title: { display: true, text: 'Mb/s' } },
      },
      plugins: { legend: { position: 'bottom', labels: { boxWidth: 12 } } },
    },
  };
}

/** What a person waits (ECHO p50 and p95) against the idle figure plus the model's added wait, by people. */
export function latencyChart(result: CapacityResult): ChartConfiguration {
  const idle = result.idle.echo.p50Ms;
  return {
    type: 'line',
    data: {
      datasets: [
        line(
          'round trip, median, measured (ms)',
          MEASURED,
          result.steps.map((step) => ({ x: step.users, y: step.echo.p50Ms })),
        ),
        line(
          'round trip, slowest 5%, measured',
          '#ae3ec9',
          result.steps.map((step) => ({ x: step.users, y: step.echo.p95Ms })),
        ),
        line(
          'idle + the model’s added wait',
          MODEL,
          result.steps.map((step) => ({ x: step.users, y: idle === null || !step.expected ? null : idle + step.expected.addedLatencyMs })),
          true,
        ),
      ],
    },
    options: {
      parsing: false,
      scales: {
        x: { type: 'linear', title: { display: true, text: 'people copying at once' } },
        y: { beginAtZero: true, title: { display: true, text: 'ms' } },
      },
      plugins: { legend: { position: 'bottom', labels: { boxWidth: 12 } } },
    },
  };
}

/** Everyone's rate while the run goes. */
export function liveChart(run: CapacityRunState): ChartConfiguration {
  return {
    type: 'line',
    data: {
      datasets: [
        {
          ...line(
            'everyone (Mb/s)',
            MEASURED,
            run.live.map((point) => ({ x: point.tSeconds, y: point.mbps })),
          ),
          pointRadius: 0,
        },
      ],
    },
    options: {
      parsing: false,
      scales: {
        x: { type: 'linear', title: { display: true, text: 'seconds into the run' } },
        y: { beginAtZero: true, title: { display: true, text: 'Mb/s' } },
      },
      plugins: { legend: { display: false } },
    },
  };
}
