import { describe, expect, it } from 'vitest';
import { withKernelCongestion } from './engine-stack.js';
import { DEFAULT_ENGINE_STACK } from '../model/diagnosis.js';
import { ProbeResultSchema } from '../contract/probe.js';

describe('withKernelCongestion', () => {
  const bbrDefault = { ...DEFAULT_ENGINE_STACK, congestion: 'bbr' };

  it("takes the congestion control the kernel ran toward the share over the machine's default", () => {
    // The lab's branch: a BBR default, a route to the datacenter with `congctl cubic`.
    const path = { mtuBytes: 1500, congestion: 'cubic' };
    expect(withKernelCongestion(bbrDefault, path)).toEqual({ ...bbrDefault, congestion: 'cubic' });
  });

  it('keeps the stack where the kernel said nothing (not Linux, or an older report)', () => {
    expect(withKernelCongestion(bbrDefault, undefined)).toBe(bbrDefault);
    const path: { mtuBytes: number; congestion?: string } = { mtuBytes: 1420 };
    expect(withKernelCongestion(bbrDefault, path)).toBe(bbrDefault);
  });
});

describe("the probe's path", () => {
  const path = (value: unknown) => ProbeResultSchema.shape.path.safeParse(value).success;

  it('holds a congestion control by its kernel name, alone or beside the MTU', () => {
    expect(path({ congestion: 'cubic' })).toBe(true);
    expect(path({ mtuBytes: 1420, congestion: 'bbr' })).toBe(true);
  });

  it('refuses a name no kernel gives: what it holds is printed to a terminal', () => {
    expect(path({ congestion: 'cubic\u001b[31m' })).toBe(false);
    expect(path({ congestion: 'a'.repeat(16) })).toBe(false);
    expect(path({ congestion: 'Cubic' })).toBe(false);
  });
});
