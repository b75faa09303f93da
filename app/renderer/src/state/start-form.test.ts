import { describe, expect, it } from 'vitest';
import { DEFAULT_FORM, startFormErrors, toAssessInput } from './start-form.js';

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

  it('checks the iperf3 address and the profile choice', () => {
    const errors = startFormErrors({ ...DEFAULT_FORM, share: '//srv/share', user: 'u', iperf: 'host:99999', profiles: [] });
    expect(errors.iperf).toBeDefined();
    expect(errors.profiles).toBeDefined();
  });

  it('leaves optional fields out of the contract input', () => {
    expect(toAssessInput({ ...DEFAULT_FORM, share: ' //srv/share ', user: 'u', password: 'p' })).toEqual({ share: '//srv/share', user: 'u', password: 'p', profiles: DEFAULT_FORM.profiles, server: 'win2012plus', quick: false });
  });
});
