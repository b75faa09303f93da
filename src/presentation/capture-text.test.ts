import { describe, expect, it } from 'vitest';
import type { CapturedCopy } from '../contract/capture.js';
import { copyClientText } from './capture-text.js';

const MIB = 2 ** 20;
const copy = (fields: Partial<CapturedCopy> = {}): CapturedCopy => ({
  op: 'write',
  bytes: 16 * MIB,
  requests: 16,
  requestBytes: MIB,
  largestRequestBytes: MIB,
  firstSeconds: 1,
  lastSeconds: 4,
  meanInFlight: 1,
  maxInFlight: 1,
  meanBytesInFlight: MIB,
  metadataRoundTrips: 2,
  opened: true,
  closed: true,
  unanswered: 0,
  ...fields,
});

describe('copyClientText: what the client did, as a person reads it', () => {
  it('says the requests as issued, and nothing more where there is nothing more', () => {
    expect(copyClientText(copy({ idleFraction: 0.02 }))).toBe('16 requests of 1 MiB, at most 1 in flight (1.0 on average, 1 MiB); 2 metadata round trips');
  });

  it("names the client's own pace where nothing was out a tenth of the time or more", () => {
    expect(copyClientText(copy({ idleFraction: 0.87, meanInFlight: 0.13 }))).toContain(
      "nothing in flight 87% of the time (the client's own pace: its CPU, disk or program)",
    );
  });

  it('says both the commonest size and the mean where requests varied, as the model takes the mean', () => {
    expect(copyClientText(copy({ requests: 39 }))).toMatch(/^39 requests, most of 1 MiB \(420 KiB on average\), at most 1 in flight/);
  });

  it('says a sealed copy was read from sizes, and claims no open, close or metadata encryption hid', () => {
    const text = copyClientText(copy({ sealed: true, opened: false, closed: false, metadataRoundTrips: 0 }));
    expect(text).toMatch(/read from the sizes of encrypted messages$/);
    expect(text).not.toMatch(/metadata|opened|closed/);
  });
});
