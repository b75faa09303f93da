import { describe, expect, it } from 'vitest';
import { linkFromFields, namesWholeLink } from './link-fields.js';
import { PipefillInputError } from '../model/errors.js';

describe('a link from the fields a person writes', () => {
  it('reads each field with its unit over the base, the buffer against the resulting BDP', () => {
    expect(linkFromFields({ bandwidth: '100mbit', rtt: '40ms', loss: '0.5%', buffer: '0.5bdp' }, { bandwidthBitsPerSecond: 0, rttMs: 0 })).toEqual({
      bandwidthBitsPerSecond: 100e6,
      rttMs: 40,
      lossRate: 0.005,
      bufferBytes: 250_000,
    });
    // A preset's link with its RTT changed keeps the preset's rate and the base's loss.
    expect(linkFromFields({ rtt: '80ms' }, { bandwidthBitsPerSecond: 20e6, rttMs: 30, lossRate: 0 })).toEqual({
      bandwidthBitsPerSecond: 20e6,
      rttMs: 80,
      lossRate: 0,
    });
  });

  it('refuses a value without its unit, naming what was expected', () => {
    expect(() => linkFromFields({ bandwidth: '100' }, { bandwidthBitsPerSecond: 0, rttMs: 10 })).toThrow(PipefillInputError);
  });

  it('says whether the fields name a whole link', () => {
    expect(namesWholeLink({ bandwidth: '1gbit', rtt: '1ms' })).toBe(true);
    expect(namesWholeLink({ bandwidth: '1gbit' })).toBe(false);
  });
});

describe('the path MTU a person writes', () => {
  it('is bytes or a tunnel by name', () => {
    const base = { bandwidthBitsPerSecond: 50e6, rttMs: 40 };
    expect(linkFromFields({ mtu: '1420' }, base).mtuBytes).toBe(1420);
    expect(linkFromFields({ mtu: 'WireGuard' }, base).mtuBytes).toBe(1420);
    expect(linkFromFields({ mtu: 'pppoe' }, base).mtuBytes).toBe(1492);
    expect(linkFromFields({}, base).mtuBytes).toBeUndefined();
  });

  it('is refused, naming what it takes, where it is neither', () => {
    for (const mtu of ['99', '1420.5', '70000', 'vpn', '1e3', 'constructor', '__proto__', 'toString'])
      expect(() => linkFromFields({ mtu }, { bandwidthBitsPerSecond: 50e6, rttMs: 40 })).toThrow(/path MTU.*not one/);
  });
});
