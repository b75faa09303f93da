// The Start form: what the person typed, checked as they type, and the
// contract's assessment input it becomes. Pure.

import type { AssessInput } from '../../../../src/contract/report.js';
import type { ClientProfileId } from '../../../../src/model/client-profiles.js';
import { PipefillError } from '../../../../src/model/errors.js';
import type { ServerProfileId } from '../../../../src/model/server-profiles.js';
import { parseHostPort, parseSharePath } from '../../../../src/model/share-path.js';

export interface StartForm {
  readonly share: string;
  readonly user: string;
  readonly password: string;
  readonly domain: string;
  readonly iperf: string;
  readonly profiles: readonly ClientProfileId[];
  readonly server: ServerProfileId;
  readonly quick: boolean;
  /** `required`: sign every message even where neither side asks for it. */
  readonly signing: 'auto' | 'required';
  /** `required`: encrypt; `off`: stop where the server or share requires encryption. */
  readonly encryption: 'auto' | 'required' | 'off';
}

export const DEFAULT_FORM: StartForm = {
  share: '',
  user: '',
  password: '',
  domain: '',
  iperf: '',
  profiles: ['xp-smb1', 'win7-smb1', 'win7-smb2', 'win10-smb3', 'pipefill-max'],
  server: 'win2012plus',
  quick: false,
  signing: 'auto',
  encryption: 'auto',
};

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
export function loginErrors(form: { readonly share: string; readonly user: string; readonly iperf: string }): Partial<Record<'share' | 'user' | 'iperf', string>> {
  const errors: Partial<Record<'share' | 'user' | 'iperf', string>> = {};
  const share = form.share.trim() === '' ? 'Enter a share: \\\\server\\share, //server/share or smb://server/share.' : messageOf(() => parseSharePath(form.share));
  if (share) errors.share = share;
  if (form.user.trim() === '') errors.user = 'Enter the user name to log in with.';
  const iperf = form.iperf.trim() === '' ? undefined : messageOf(() => parseHostPort(form.iperf, IPERF_PORT));
  if (iperf) errors.iperf = iperf;
  return errors;
}

export function startFormErrors(form: StartForm): Partial<Record<'share' | 'user' | 'iperf' | 'profiles', string>> {
  const errors: Partial<Record<'share' | 'user' | 'iperf' | 'profiles', string>> = loginErrors(form);
  if (form.profiles.length === 0) errors.profiles = 'Choose at least one client generation.';
  return errors;
}

/** Where and as whom, as the contract takes it (the Start and Capacity forms both give it). */
export function loginInput(form: { readonly share: string; readonly user: string; readonly password: string; readonly domain: string; readonly iperf: string }) {
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
    profiles: [...form.profiles],
    server: form.server,
    quick: form.quick,
    ...(form.signing === 'auto' ? {} : { signing: form.signing }),
    ...(form.encryption === 'auto' ? {} : { encryption: form.encryption }),
  };
}
