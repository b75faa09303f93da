// docs/architecture.md draws the layers as the linter enforces them
// (ALLOWED_LAYERS and BASE_LAYERS in scripts/lib/layers.mjs, which eslint.config.js enforces), and every folder of
// src/ is in the allow-list, so neither the picture nor the rule can leave a
// folder out.

import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { layerDiagram, layerLevels } from './lib/layer-diagram.mjs';
import { ALLOWED_LAYERS, BASE_LAYERS } from './lib/layers.mjs';

const root = join(import.meta.dirname, '..');
const layers = { ...BASE_LAYERS, ...ALLOWED_LAYERS };

describe('the layer diagram', () => {
  it("docs/architecture.md's is the one the allow-list draws", () => {
    const architecture = readFileSync(join(root, 'docs', 'architecture.md'), 'utf8');
    expect(architecture).toContain('```\n' + layerDiagram(layers) + '\n```');
  });

  it('every folder of src/ has its place in the allow-list (test-support is for tests only)', () => {
    const folders = readdirSync(join(root, 'src')).filter((name) => statSync(join(root, 'src', name)).isDirectory() && name !== 'test-support');
    expect(folders.filter((name) => !(name in layers))).toEqual([]);
  });

  it('puts a layer above what it imports, and refuses a loop or a layer nobody listed', () => {
    expect(layerDiagram({ model: [], smb: ['model'], copy: ['model', 'smb'], probe: ['copy'], lab: ['smb'] })).toBe(
      ['src/probe', 'src/copy, src/lab', 'src/smb', 'src/model'].join('\n'),
    );
    expect(() => layerLevels({ smb: ['copy'], copy: ['smb'] })).toThrow(/may import itself/);
    expect(() => layerLevels({ copy: ['smb'] })).toThrow(/smb is imported but not listed/);
  });
});
