import { describe, expect, it } from 'vitest';
import { planFromInput } from '../../../../src/contract/plan.js';
import { bandwidthToSlider, plan, planCsv, plannerHash, settingsFromHash, settingsFromPreset, sliderToBandwidth } from './planner.js';

describe('planner state', () => {
  it('gives the same predictions as the contract (and so the CLI) for a preset', () => {
    const settings = settingsFromPreset('europe-continental', 'win2012plus');
    expect(settings).toBeDefined();
    if (!settings) return;
    expect(plan(settings)).toEqual(planFromInput({ preset: 'europe-continental', server: 'win2012plus' }));
  });

  it('moves the bandwidth slider on a log scale and back', () => {
    expect(sliderToBandwidth(0)).toBe(5e5);
    expect(sliderToBandwidth(1000)).toBe(1e10);
    expect(sliderToBandwidth(bandwidthToSlider(155e6))).toBeCloseTo(155e6, -6);
  });

  it('shares a plan through the page address, and refuses one that does not parse', () => {
    const settings = { bandwidthBitsPerSecond: 20e6, rttMs: 80, lossPercent: 0.1, server: 'samba' as const };
    expect(settingsFromHash(plannerHash(settings))).toEqual(settings);
    expect(settingsFromHash('#plan&bandwidth=-1&rtt=80')).toBeUndefined();
    expect(settingsFromHash('#token=abc')).toBeUndefined();
  });

  it('exports one CSV row per prediction', () => {
    const result = plan({ bandwidthBitsPerSecond: 20e6, rttMs: 80, lossPercent: 0, server: 'samba' });
    const lines = planCsv(result).trim().split('\n');
    expect(lines).toHaveLength(result.cells.length + 1);
    expect(lines[0]).toMatch(/^link,bandwidth_bps/);
  });
});

describe('the planner with a buffer, signing or encryption, and multichannel', () => {
  it('carries them through the address, and drops values outside its lists', () => {
    const settings = {
      bandwidthBitsPerSecond: 155e6,
      rttMs: 32,
      lossPercent: 0,
      server: 'win2022' as const,
      bufferShare: 0.125,
      security: 'encryption' as const,
      channels: 4,
      mtuBytes: 1420,
    };
    expect(settingsFromHash(plannerHash(settings))).toEqual(settings);
    expect(settingsFromHash('#plan&bandwidth=155000000&rtt=32&loss=0&server=samba&buffer=7&security=evil&channels=999&mtu=100')).toEqual({
      bandwidthBitsPerSecond: 155e6,
      rttMs: 32,
      lossPercent: 0,
      server: 'samba',
    });
  });

  it('plans with them: a shallow buffer slows a bulk copy, encryption names its cipher, and clients that cannot connect say why', () => {
    const base = { bandwidthBitsPerSecond: 155e6, rttMs: 32, lossPercent: 0, server: 'samba' as const };
    const at = (result: ReturnType<typeof plan>) =>
      result.cells.find((cell) => cell.client === 'pipefill-max' && cell.op === 'read' && cell.workload === 'file:100MB');
    const deep = plan(base);
    const shallow = plan({ ...base, bufferShare: 0 });
    expect(at(shallow)?.seconds).toBeGreaterThan(at(deep)?.seconds ?? Infinity);
    const sealed = plan({ ...base, security: 'encryption' });
    expect(at(sealed)?.protection).toBe('AES-128-GCM');
    expect(sealed.refused.map((r) => r.client)).toEqual(expect.arrayContaining(['xp-smb1', 'win7-smb2']));
    expect(planCsv(sealed).split('\n')[0]).toContain('protection');
  });
});

describe('the planner over a tunnel', () => {
  it("plans with the tunnel's smaller packets: a copy the line paces takes longer, by Ethernet's payload over the tunnel's at most", () => {
    const base = { bandwidthBitsPerSecond: 50e6, rttMs: 40, lossPercent: 0, server: 'samba' as const };
    const at = (result: ReturnType<typeof plan>) =>
      result.cells.find((cell) => cell.client === 'pipefill-max' && cell.op === 'read' && cell.workload === 'file:100MB');
    const plain = plan(base);
    const tunnel = plan({ ...base, mtuBytes: 1420 });
    expect(tunnel.link.mtuBytes).toBe(1420);
    const ratio = (at(tunnel)?.seconds ?? 0) / (at(plain)?.seconds ?? Infinity);
    expect(ratio).toBeGreaterThan(1.03);
    expect(ratio).toBeLessThanOrEqual(1448 / 1368 + 1e-9);
  });
});
