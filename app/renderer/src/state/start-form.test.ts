import { describe, expect, it } from 'vitest';
import { DEFAULT_FORM, formAfterRun, startFormErrors, toAssessInput } from './start-form.js';

describe('start form', () => {
  it('accepts the three ways of writing a share', () => {
    for (const share of ['\\\\srv\\share', '//srv/share', 'smb://srv/share']) {
      expect(startFormErrors({ ...DEFAULT_FORM, share, user: 'u' })).toEqual({});
    }
  });

  it('says what is wrong with a share as it is typed', () => {
    expect(startFormErrors({ ...DEFAULT_FORM, share: '//srv', user: 'u' }).share).toMatch(/share/i);
    expect(startFormErrors({ ...DEFAULT_FORM, share: '', user: '' })).toMatchObject({ share: expect.any(String), user: expect.any(String) });
  });

  it('takes alice, CORP\\alice and alice@corp.example.com, and says where the user and domain disagree', () => {
    for (const user of ['alice', 'CORP\\alice', 'alice@corp.example.com']) expect(startFormErrors({ ...DEFAULT_FORM, share: '//srv/share', user })).toEqual({});
    expect(startFormErrors({ ...DEFAULT_FORM, share: '//srv/share', user: 'CORP\\alice', domain: 'OTHER' }).user).toMatch(/names the domain CORP/);
    expect(startFormErrors({ ...DEFAULT_FORM, share: '//srv/share', user: 'CORP\\' }).user).toMatch(/not DOMAIN\\user/);
  });

  it('checks the iperf3 address', () => {
    const errors = startFormErrors({ ...DEFAULT_FORM, share: '//srv/share', user: 'u', iperf: 'host:99999' });
    expect(errors.iperf).toBeDefined();
  });

  it('leaves optional fields out of the contract input', () => {
    // By default: the person's Windows 11 24H2 beside Pipefill's best pipeline, the server recognised from what it sends.
    expect(toAssessInput({ ...DEFAULT_FORM, share: ' //srv/share ', user: 'u', password: 'p' })).toEqual({
      share: '//srv/share',
      user: 'u',
      password: 'p',
      client: 'win11-24h2',
      quick: false,
    });
    // A readiness comparison never lists the client itself or Pipefill's own pipeline twice.
    expect(
      toAssessInput({
        ...DEFAULT_FORM,
        share: '//srv/share',
        user: 'u',
        client: 'win10-smb3',
        compare: ['xp-smb1', 'win10-smb3', 'pipefill-max'],
        server: 'samba',
      }),
    ).toMatchObject({ client: 'win10-smb3', compare: ['xp-smb1'], server: 'samba' });
    // The copy tool: robocopy /MT:4 copies the folders four files at once; Explorer's one at a time is the default, left out.
    expect(toAssessInput({ ...DEFAULT_FORM, share: '//srv/share', user: 'u', threads: 4 })).toMatchObject({ threads: 4 });
    expect(toAssessInput({ ...DEFAULT_FORM, share: '//srv/share', user: 'u', threads: 1 })).not.toHaveProperty('threads');
  });
});

describe('the Start form after a run', () => {
  it('keeps what was typed, the password only when asked to', () => {
    const typed = { ...DEFAULT_FORM, share: '\\\\fs01\\projects', user: 'CORP\\alice', password: 'hunter2', quick: true };
    expect(formAfterRun(typed)).toEqual({ ...typed, password: '' });
    expect(formAfterRun({ ...typed, keepPassword: true })).toEqual({ ...typed, keepPassword: true });
  });
});
