import { describe, expect, it } from 'vitest';
import { projectionText } from './report-views.js';

describe('projectionText', () => {
  const base = { measuredBytes: 12e6, measuredSeconds: 1.4, filesTouched: 1, rateMbps: 41.2, rateRelativeHalfWidth: 0.03, lowSeconds: 5.9, highSeconds: 6.6 };

  it('says what a stopped copy measured and how its rate was read', () => {
    expect(projectionText({ ...base, stoppedBy: 'settled', rateFrom: 'this-copy' })).toBe('projected from 12.0 MB in 1.40 s, 1 file (rate settled at 41.2 Mb/s ± 3%); 5.90-6.60 s at the rate\'s spread');
    expect(projectionText({ ...base, stoppedBy: 'time', rateFrom: 'this-copy', rateRelativeHalfWidth: null, highSeconds: null })).toMatch(/slot ran out before the rate settled; 41\.2 Mb\/s while data moved\); no range can be given$/);
  });

  it('says plainly when no copy of the workload ran', () => {
    const text = projectionText({ ...base, stoppedBy: 'not-run', rateFrom: 'file-copy', measuredBytes: 0, measuredSeconds: 0, filesTouched: 0 });
    expect(text).toMatch(/^projected, not run \(quick\): each file's round trips as the file copy measured them/);
    expect(text).toContain('41.2 Mb/s ± 3%');
    expect(text).not.toContain('0.00 MB');
  });
});
