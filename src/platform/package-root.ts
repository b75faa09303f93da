// Where Pipefill's own files are (package.json, native/, dist/renderer),
// whichever build is running: src/ under tsx, dist/ from the CLI, or
// dist/electron/src/ in the desktop app. Found by walking up from this file
// to the package.json named "pipefill", at most ten levels.

import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let cached: { root: string; version: string } | undefined;

function find(): { root: string; version: string } {
  let directory = dirname(fileURLToPath(import.meta.url));
  for (let level = 0; level < 10; level++) {
    const manifest = join(directory, 'package.json');
    if (existsSync(manifest)) {
      const parsed = JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string; version?: string };
      if (parsed.name === 'pipefill') return { root: directory, version: parsed.version ?? '0.0.0' };
    }
    const parent = dirname(directory);
    if (parent === directory) break;
    directory = parent;
  }
  throw new Error(`Pipefill's package.json was not found above ${fileURLToPath(import.meta.url)}.`);
}

export function packageRoot(): string {
  cached ??= find();
  return cached.root;
}

export function pipefillVersion(): string {
  cached ??= find();
  return cached.version;
}
