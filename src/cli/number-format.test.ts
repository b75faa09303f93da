import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runCliCaptured } from '../test-support/cli-run.js';

const fixture = (name: string) => fileURLToPath(new URL(`../report/fixtures/${name}.json`, import.meta.url));

/**
 * Every rate, time, size and share a person reads with more than four
 * significant digits ("18396.47 Mb/s", "0.4342640000000415 ms"): a figure
 * means at most that much, and one formatter (src/model/units.ts) rounds them all.
 */
function overPrecise(text: string): string[] {
  const quantity = /(?<![\w.:/-])(\d+(?:\.\d+)?)\s*(Gb\/s|Mb\/s|kb\/s|[KMG]B\/s|ms|s|min|[KMG]i?B|%)(?![\w/])/g;
  return [...text.matchAll(quantity)].filter((match) => (match[1] ?? '').replace('.', '').replace(/^0+/, '').length > 4).map((match) => match[0]);
}

describe('numbers the CLI prints', () => {
  it('finds what it is meant to', () => {
    expect(overPrecise('18396.471753749236 Mb/s, 0.4342640000000415 ms, 13727.0 Mb/s')).toEqual([
      '18396.471753749236 Mb/s',
      '0.4342640000000415 ms',
      '13727.0 Mb/s',
    ]);
    expect(overPrecise('149 Mb/s, 1.07 GB, 5 min 27 s, 8192 credits, run 12345, 0.033')).toEqual([]);
  });

  it.each([
    ['predict', '--client', 'win7-smb2', '--server', 'win2012plus', '--bandwidth', '155mbit', '--rtt', '32ms', '--workload', 'file:100MB', '--op', 'read'],
    ['recommend', '--client', 'win10-smb3', '--server', 'samba', '--bandwidth', '33mbit', '--rtt', '109ms'],
    // A fast path: the rates run to Gb/s and the round trip to a fraction of a millisecond.
    ['recommend', '--client', 'linux-cifs', '--server', 'samba', '--bandwidth', '10gbit', '--rtt', '0.3ms'],
    ['plan', '--bandwidth', '33mbit', '--rtt', '109ms'],
    ['report', 'summary', fixture('lab-155mbit-32ms')],
    ['report', 'compare', fixture('lab-155mbit-32ms'), fixture('lab-52mbit-75ms')],
    ['profiles'],
  ])('pipefill %s ... rounds every figure', async (...argv) => {
    const run = await runCliCaptured(...argv);
    expect(run.code, run.err).toBe(0);
    expect(run.out.length).toBeGreaterThan(0);
    expect(overPrecise(`${run.out}\n${run.err}`)).toEqual([]);
  });
});
