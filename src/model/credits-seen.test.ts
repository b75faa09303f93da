import { describe, expect, it } from 'vitest';
import { creditsSeen } from './credits-seen.js';

describe('creditsSeen', () => {
  it('takes what a copy held while it waited, where it waited a real share of its time', () => {
    expect(creditsSeen([{ creditsGrantedMax: 32, creditsHeldWhileWaiting: 24, creditWaitingFraction: 0.9 }])).toBe(24);
  });

  it('ignores a brief wait (a ramp at the start) and keeps the most held', () => {
    expect(creditsSeen([{ creditsGrantedMax: 512, creditsHeldWhileWaiting: 8, creditWaitingFraction: 0.05 }])).toBe(512);
  });

  it('lets a copy held back by credits speak for the server over one that never waited', () => {
    expect(
      creditsSeen([
        { creditsGrantedMax: 32 },
        { creditsGrantedMax: 32, creditsHeldWhileWaiting: 16, creditWaitingFraction: 0.6 },
        { creditsGrantedMax: 40, creditsHeldWhileWaiting: 24, creditWaitingFraction: 0.5 },
      ]),
    ).toBe(24);
  });

  it('says nothing where no copy recorded a grant (reports of SMB1-only copies)', () => {
    expect(creditsSeen([{ creditsGrantedMax: 0 }])).toBeUndefined();
    expect(creditsSeen([])).toBeUndefined();
  });
});
