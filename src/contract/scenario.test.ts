import { describe, expect, it } from 'vitest';
import { inputErrorText } from '../test-support/input-error.js';
import { apiContract } from './api.js';
import { parseInput } from './validate.js';
import { predictScenario, toScenario } from './scenario.js';

const input = { client: 'win7-smb2', server: 'netapp-tr3869', op: 'read', workload: 'file:100MB', bandwidth: 'OC3', rtt: '32ms' } as const;

describe('toScenario', () => {
  it('reads units into the model scenario', () => {
    expect(toScenario({ ...input, loss: '0.1%' }).link).toEqual({ bandwidthBitsPerSecond: 155.52e6, rttMs: 32, lossRate: 0.001 });
  });
  it('refuses a bad workload before predicting', () => {
    expect(inputErrorText(() => toScenario({ ...input, workload: 'file:lots' }))).toMatch(/Cannot read "lots" as a size/);
  });
});

describe('the predict contract', () => {
  it('produces output that its own schema accepts, with the scenario echoed', () => {
    const result = predictScenario(input);
    expect(apiContract.predict.output.parse(result)).toEqual(result);
    expect(result).toMatchObject(input);
    const write = predictScenario({ ...input, op: 'write' });
    expect(write.layers.map((layer) => layer.layer)).toEqual(['bandwidth', 'copy-pipeline', 'credits', 'client-tcp-window', 'server-tcp-window']);
    expect(write.layers.find((layer) => layer.layer === 'server-tcp-window')?.bytesInFlight).toBe(2_096_560);
  });

  it('leaves out layers with no finite budget rather than printing a sentinel', () => {
    const result = predictScenario({ ...input, op: 'read' });
    // The filer's send buffer is not modelled as a limit (netapp-tr3869).
    expect(result.layers.map((layer) => layer.layer)).not.toContain('server-tcp-window');
    expect(JSON.stringify(result)).not.toMatch(/null|Infinity|9007199254740991/);
  });

  it('lists the valid ids for an unknown client, with its position in a batch', () => {
    const text = inputErrorText(() => parseInput(apiContract.predictBatch.input, [input, { ...input, client: 'win95' }], 'predictBatch input'));
    expect(text).toMatch(/#2\.client/);
    expect(text).toMatch(/xp-smb1/);
  });

  it('refuses unknown keys and bare numbers for rates', () => {
    expect(inputErrorText(() => parseInput(apiContract.predict.input, { ...input, colour: 'red' }, 'predict input'))).toMatch(/colour/);
    expect(inputErrorText(() => parseInput(apiContract.predict.input, { ...input, bandwidth: 155 }, 'predict input'))).toMatch(
      /bandwidth: expected a string with a unit/,
    );
  });
});
