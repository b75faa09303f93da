import { describe, expect, it } from 'vitest';
import { demoReport } from '../test-support/demo-report.js';
import { capacityServerHint } from './capacity-text.js';

describe('capacityServerHint', () => {
  it("names the server as the share's assessment saw it while the form is on that share, and nothing once it is not", () => {
    const report = demoReport();
    const form = { share: report.target.share, server: report.options.server };
    expect(capacityServerHint(form, report)).toBe(
      'The assessment of this share saw Samba, which granted at most 24 SMB credits. The run reads the credits its own copies are granted, and the model takes the server so.',
    );
    expect(capacityServerHint({ ...form, share: '//other/share' }, report)).toBeUndefined();
    expect(capacityServerHint(form, undefined)).toBeUndefined();
  });
});
