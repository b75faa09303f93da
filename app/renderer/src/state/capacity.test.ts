import { describe, expect, it } from 'vitest';
import { CAPACITY_FIXTURE } from '../../../../src/test-support/capacity-fixture.js';
import type { Report } from '../../../../src/contract/report.js';
import {
  applyCapacityProgress,
  capacityFormErrors,
  capacityFormFor,
  curveChart,
  DEFAULT_CAPACITY_FORM,
  INITIAL_CAPACITY_RUN,
  latencyChart,
  parseSteps,
  toCapacityInput,
} from './capacity.js';

const filled = { ...DEFAULT_CAPACITY_FORM, share: '//fs/data', user: 'helpdesk', password: 'secret' };

describe('the Capacity form', () => {
  it('reads the steps and says what is wrong with them', () => {
    expect(parseSteps('1, 2,4')).toEqual([1, 2, 4]);
    expect(parseSteps('4,2')).toMatch(/must rise/);
    expect(parseSteps('1,65')).toMatch(/1 to 64/);
    expect(parseSteps('1,x')).toMatch(/whole numbers/);
  });

  it('checks every field and becomes the contract input, target included', () => {
    expect(capacityFormErrors(DEFAULT_CAPACITY_FORM)).toHaveProperty('share');
    expect(capacityFormErrors(filled)).toEqual({});
    expect(capacityFormErrors({ ...filled, seconds: '0' })).toHaveProperty('seconds');
    expect(capacityFormErrors({ ...filled, targetMbps: 'fast' })).toHaveProperty('target');
    expect(capacityFormErrors({ ...filled, targetUsers: '', targetMbps: '', targetMs: '' })).toEqual({});
    expect(toCapacityInput(filled)).toEqual({
      share: '//fs/data',
      user: 'helpdesk',
      password: 'secret',
      profile: 'win10-smb3',
      server: 'samba',
      op: 'read',
      clients: [1, 2, 4, 8, 16, 32],
      seconds: 10,
      target: { users: 30, perUserMbps: 5, addedLatencyMs: 50 },
    });
    expect(toCapacityInput({ ...filled, targetUsers: '', targetMbps: '', targetMs: '' })).not.toHaveProperty('target');
  });
});

describe('the Capacity run and charts', () => {
  it('keeps everyone’s live rate against time since the first event', () => {
    const first = applyCapacityProgress(INITIAL_CAPACITY_RUN, { step: 'warm-up (1 person)', bytes: 0, totalBytes: 0, fraction: 0.1 }, 1_000);
    const second = applyCapacityProgress(
      first,
      { step: 'measure (1 person)', bytes: 0, totalBytes: 0, fraction: 0.2, live: { tMs: 0, mbps: 42, opsPerSecond: 0 } },
      3_500,
    );
    expect(second).toEqual({ step: 'measure (1 person)', fraction: 0.2, live: [{ tSeconds: 2.5, mbps: 42 }], startedAtMs: 1_000 });
  });

  it('draws measured and modelled points only where there are figures', () => {
    const curve = curveChart(CAPACITY_FIXTURE);
    // The second step has no model: the measured lines have two points, the model's one.
    expect(curve.data.datasets.map((dataset) => dataset.data.length)).toEqual([2, 1, 2, 1]);
    const waits = latencyChart(CAPACITY_FIXTURE);
    expect(waits.data.datasets.map((dataset) => dataset.data.length)).toEqual([2, 2, 1]);
    expect(waits.data.datasets[2]?.data[0]).toEqual({ x: 1, y: 32.1 + 8.2 });
  });
});

describe('capacityFormFor', () => {
  it('starts from the share just assessed: its login, the client the answer was for and the server it found', () => {
    // The parts of a report the form reads (the renderer's tests have no file system to load a fixture with).
    const report = {
      target: { share: '//10.77.0.2/share', user: 'pipefill', domain: 'CORP' },
      options: { profiles: ['pipefill-max', 'win11-24h2'], client: 'win11-24h2', server: 'netapp-tr3869' },
    } as unknown as Report;
    expect(capacityFormFor(report)).toMatchObject({
      share: '//10.77.0.2/share',
      user: 'pipefill',
      domain: 'CORP',
      profile: 'win11-24h2',
      server: 'netapp-tr3869',
      password: '',
    });
    expect(capacityFormFor(undefined)).toEqual(DEFAULT_CAPACITY_FORM);
  });
});
