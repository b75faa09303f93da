import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ENGINE_NODE_FLAGS, missingEngineFlags } from './engine-flags.js';

const root = new URL('../../', import.meta.url);
const read = (path: string) => readFileSync(new URL(path, root), 'utf8');

describe('engine flags', () => {
  it('lists the flags a process lacks', () => {
    expect(missingEngineFlags([])).toEqual([...ENGINE_NODE_FLAGS]);
    expect(missingEngineFlags(['--enable-source-maps', ...ENGINE_NODE_FLAGS])).toEqual([]);
    expect(missingEngineFlags(['--memory-reducer'])).toEqual(['--no-memory-reducer']);
  });

  it('every launcher a person uses passes them to Node', () => {
    const scripts = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts;
    for (const name of ['start', 'pipefill']) {
      const words = (scripts[name] ?? '').split(/\s+/);
      expect(words[0], `npm run ${name}`).toBe('node');
      expect(
        missingEngineFlags(
          words.slice(
            1,
            words.findIndex((word) => word.endsWith('.mjs')),
          ),
        ),
        `npm run ${name}`,
      ).toEqual([]);
    }
    const shebang = read('bin/pipefill.js').split('\n')[0] ?? '';
    expect(shebang.startsWith('#!/usr/bin/env -S node ')).toBe(true);
    expect(missingEngineFlags(shebang.split(/\s+/).slice(3))).toEqual([]);
    expect(read('scripts/start.mjs')).toMatch(/--js-flags=\$\{ENGINE_NODE_FLAGS\.join\(' '\)\}/);
  });
});
