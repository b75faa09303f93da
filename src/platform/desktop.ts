// Can this machine show a window, and is Electron's binary here? Asked by
// `npm start` (Electron or the web mode), `pipefill ui` (open a browser?) and
// the Electron e2e test (run or skip).

import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

export function hasDisplay(): boolean {
  if (process.platform === 'darwin' || process.platform === 'win32') return true;
  return Boolean(process.env['DISPLAY'] || process.env['WAYLAND_DISPLAY']);
}

/** Electron's binary, when its package downloaded one (it cannot where its download host is unreachable). */
export function electronBinary(): string | undefined {
  try {
    const packageDir = dirname(createRequire(import.meta.url).resolve('electron'));
    const pathFile = join(packageDir, 'path.txt');
    if (!existsSync(pathFile)) return undefined;
    const binary = join(packageDir, 'dist', readFileSync(pathFile, 'utf8').trim());
    return existsSync(binary) ? binary : undefined;
  } catch {
    return undefined;
  }
}
