// The README is the front door (issue 36): the two commands first, short, and
// every document it points to exists.

import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..');
const readme = readFileSync(join(root, 'README.md'), 'utf8');

describe('README.md', () => {
  it('opens on the two commands a newcomer types, and stays under 200 lines', () => {
    const [title, blank, fence, start, test] = readme.split('\n');
    expect([title, blank, fence]).toEqual(['# Pipefill', '', '```sh']);
    expect(start).toMatch(/^npm start\s+# runs the app/);
    expect(test).toMatch(/^npm test\s+# runs the tests/);
    expect(readme.split('\n').length).toBeLessThanOrEqual(200);
  });

  it('points only at documents and images that exist', () => {
    const targets = [...readme.matchAll(/`((?:docs|assets)\/[^`\s]+)`|\]\(((?:docs|assets)\/[^)\s]+)\)/g)].map((match) => match[1] ?? match[2] ?? '');
    expect(targets.length).toBeGreaterThan(5);
    for (const target of targets) expect(existsSync(join(root, target)), target).toBe(true);
  });
});
