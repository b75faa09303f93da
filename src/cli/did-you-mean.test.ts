import { describe, expect, it } from 'vitest';
import { didYouMean, editDistance } from './did-you-mean.js';

describe('didYouMean', () => {
  it('counts edits', () => {
    expect(editDistance('bandwith', 'bandwidth')).toBe(1);
    expect(editDistance('asess', 'assess')).toBe(1);
    expect(editDistance('', 'abc')).toBe(3);
    expect(editDistance('kitten', 'sitting')).toBe(3);
  });

  it('offers the nearest word within a slip, and nothing for another word', () => {
    const options = ['share', 'user', 'password-env', 'bandwidth', 'budget', 'json'];
    expect(didYouMean('bandwith', options)).toBe('bandwidth');
    expect(didYouMean('shares', options)).toBe('share');
    expect(didYouMean('JSON', options)).toBe('json');
    expect(didYouMean('password-evn', options)).toBe('password-env');
    expect(didYouMean('verbose', options)).toBeUndefined();
    expect(didYouMean('x', options)).toBeUndefined();
  });
});
