// No import circles in the project's source, and the check shown finding the
// ones planted for it (in a graph, and in files on disk).

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importCycles, importGraph } from './lib/import-graph.mjs';

const root = join(import.meta.dirname, '..');

describe('import circles', () => {
  it('the source under src/ and app/ has none', () => {
    const graph = importGraph(root);
    expect(graph.size).toBeGreaterThan(200);
    expect(importCycles(graph)).toEqual([]);
  });

  it('finds a planted circle, a longer one and a file importing itself, and nothing in a chain', () => {
    const graph = new Map([
      ['a', ['b']],
      ['b', ['a', 'c']],
      ['c', ['d']],
      ['d', ['e']],
      ['e', ['c']],
      ['f', ['f']],
      ['g', ['a']],
    ]);
    expect(importCycles(graph)).toEqual([['a', 'b'], ['c', 'd', 'e'], ['f']]);
    expect(
      importCycles(
        new Map([
          ['x', ['y']],
          ['y', ['z']],
          ['z', []],
        ]),
      ),
    ).toEqual([]);
  });

  it('reads type-only imports, re-exports and dynamic imports from files, as a session and its log-on once were', () => {
    const dir = mkdtempSync(join(tmpdir(), 'pipefill-graph-'));
    try {
      mkdirSync(join(dir, 'src', 'smb'), { recursive: true });
      writeFileSync(join(dir, 'src', 'smb', 'session.ts'), "import { logOn } from './logon.js';\nexport const open = logOn;\n");
      writeFileSync(join(dir, 'src', 'smb', 'logon.ts'), "import type { Target } from './session.js';\nexport const logOn = (t?: Target) => t;\n");
      writeFileSync(join(dir, 'src', 'smb', 'again.ts'), "export { open } from './session.js';\n");
      writeFileSync(join(dir, 'src', 'smb', 'late.ts'), "export const later = () => import('./again.js');\n");
      writeFileSync(join(dir, 'src', 'smb', 'late.test.ts'), "import { later } from './late.js';\n");
      const graph = importGraph(dir);
      expect([...graph.keys()]).toEqual(['src/smb/again.ts', 'src/smb/late.ts', 'src/smb/logon.ts', 'src/smb/session.ts']);
      expect(graph.get('src/smb/late.ts')).toEqual(['src/smb/again.ts']);
      expect(importCycles(graph)).toEqual([['src/smb/logon.ts', 'src/smb/session.ts']]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
