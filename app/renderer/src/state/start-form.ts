// The Start form: what the person typed, checked as they type, and the
// contract's assessment input it becomes. Pure.

import type { AssessInput } from '../../../../src/contract/report.js';
import type { ClientProfileId } from '../../../../src/model/client-profiles.js';
import { DEFAULT_CLIENT } from '../../../../src/model/client-profiles.js';
import { PipefillError } from '../../../../src/model/errors.js';
import type { ServerProfileId } from '../../../../src/model/server-profiles.js';
import { parseLoginName } from '../../../../src/model/login-name.js';
import { parseHostPort, parseSharePath } from '../../../../src/model/share-path.js';

export interface StartForm {
  readonly share: string;
  readonly user: string;
  readonly password: string;
  readonly domain: string;
  readonly iperf: string;
  /** The client the person's users have: the verdict is for it. */
  readonly client: ClientProfileId;
  /** Older generations tested beside it, for a readiness comparison (none by default). */
  readonly compare: readonly ClientProfileId[];
  /** `recognise`: take the server's profile from what it says of itself. */
  readonly server: ServerProfileId | 'recognise';
  readonly quick: boolean;
  /** The person's copy tool: 1, one file at a time (Explorer); n, robocopy /MT:n (its folders of small files n files at once). */
  readonly threads: number;
  /** `required`: sign every message even where neither side asks for it. */
  readonly signing: 'auto' | 'required';
  /** `required`: encrypt; `off`: stop where the server or share requires encryption. */
  readonly encryption: 'auto' | 'required' | 'off';
  /** Keep the password in the form after a run (only while this page is open); off: it is cleared. */
  readonly keepPassword: boolean;
}

export const DEFAULT_FORM: StartForm = {
  share: '',
  user: '',
  password: '',
  domain: '',
  iperf: '',
  client: DEFAULT_CLIENT,
  compare: [],
  server: 'recognise',
  quick: false,
  threads: 1,
  signing: 'auto',
  encryption: 'auto',
  keepPassword: false,
};

/**
 * The form as the Start view shows it again after a run (Back to Start, a
 * failed run): everything the person typed, the password only if they asked
 * to keep it.
 */
export function formAfterRun(form: StartForm): StartForm {
  return form.keepPassword ? form : { ...form, password: '' };
}

const IPERF_PORT = 5201;

function messageOf(check: () => unknown): string | undefined {
  try {
    check();
    return undefined;
  } catch (error) {
    return error instanceof PipefillError ? `${error.message} ${error.hint}` : String(error);
  }
}

/** What is wrong with where and as whom (the Start and Capacity forms both ask). */
export function loginErrors(form: {
  readonly share: string;
  readonly user: string;
  readonly domain?: string;
  readonly iperf: string;
}): Partial<Record<'share' | 'user' | 'iperf', string>> {
  const errors: Partial<Record<'share' | 'user' | 'iperf', string>> = {};
  const share =
    form.share.trim() === '' ? 'Enter a share: \\\\server\\share, //server/share or smb://server/share.' : messageOf(() => parseSharePath(form.share));
  if (share) errors.share = share;
  // alice, CORP\alice or alice@corp.example.com, agreeing with the domain field where both name one.
  const user =
    form.user.trim() === ''
      ? 'Enter the user name to log in with: alice, CORP\\alice or alice@corp.example.com.'
      : messageOf(() => parseLoginName(form.user, form.domain));
  if (user) errors.user = user;
  const iperf = form.iperf.trim() === '' ? undefined : messageOf(() => parseHostPort(form.iperf, IPERF_PORT));
  if (iperf) errors.iperf = iperf;
  return errors;
}

export function startFormErrors(form: StartForm): Partial<Record<'share' | 'user' | 'iperf', string>> {
  return loginErrors(form);
}

/** The copy tools the Start form offers: Explorer, and robocopy at the thread counts its advice proposes. */
export const COPY_TOOL_THREADS: readonly number[] = [1, 2, 4, 8, 16, 32, 64, 128];

/** The generations a person may compare with: every one but their own and Pipefill's best pipeline, which always run. */
export function comparable(ids: readonly ClientProfileId[], client: ClientProfileId): ClientProfileId[] {
  return ids.filter((id) => id !== client && id !== 'pipefill-max');
}

/** Where and as whom, as the contract takes it (the Start and Capacity forms both give it). */
export function loginInput(form: {
  readonly share: string;
  readonly user: string;
  readonly password: string;
  readonly domain: string;
  readonly iperf: string;
}) {
  return {
    share: form.share.trim(),
    user: form.user.trim(),
    password: form.password,
    ...(form.domain.trim() === '' ? {} : { domain: form.domain.trim() }),
    ...(form.iperf.trim() === '' ? {} : { iperf: form.iperf.trim() }),
  };
}

export function toAssessInput(form: StartForm): AssessInput {
  return {
    ...loginInput(form),
    client: form.client,
    ...(form.compare.length === 0 ? {} : { compare: comparable(form.compare, form.client) }),
    ...(form.server === 'recognise' ? {} : { server: form.server }),
    quick: form.quick,
    ...(form.threads > 1 ? { threads: form.threads } : {}),
    ...(form.signing === 'auto' ? {} : { signing: form.signing }),
    ...(form.encryption === 'auto' ? {} : { encryption: form.encryption }),
  };
}
