import { describe, expect, it } from 'vitest';
import { busyTicks, otherCores, otherProgramsLoad } from './cpu-load.js';

describe("other programs' load", () => {
  it("sums /proc/stat's busy ticks and refuses a line it cannot trust", () => {
    // user nice system idle iowait irq softirq steal guest guest_nice
    expect(busyTicks('cpu  100 5 20 9000 40 3 2 1 0 0\ncpu0 50 2 10 4500 20 1 1 0 0 0\n')).toBe(131);
    expect(busyTicks('cpu0 100 5 20 9000 40 3 2 1 0 0')).toBeUndefined();
    expect(busyTicks('cpu  100 5 20')).toBeUndefined();
    expect(busyTicks('cpu  100 -5 20 9000 40 3 2 1 0 0')).toBeUndefined();
    expect(busyTicks('cpu  1e9 5 20 9000 40 3 2 1 0 0')).toBeUndefined();
    expect(busyTicks('')).toBeUndefined();
  });

  it("is the busy time less Pipefill's own, over the wall time, within the machine's cores", () => {
    expect(otherCores(0.8, 0.002, 0.4, 2)).toBeCloseTo(1.995, 3);
    expect(otherCores(0.001, 0.002, 0.4, 2)).toBe(0);
    expect(otherCores(5, 0, 0.4, 2)).toBe(2);
    expect(otherCores(1, 0, 0, 2)).toBeUndefined();
  });

  it.runIf(process.platform === 'linux')('reads this machine: a load within its cores', async () => {
    const load = await otherProgramsLoad(50);
    expect(load?.cores).toBeGreaterThanOrEqual(1);
    expect(load?.otherCores).toBeGreaterThanOrEqual(0);
    expect(load?.otherCores).toBeLessThanOrEqual(load?.cores ?? 0);
  });
});
