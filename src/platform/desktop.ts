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

/** After a failed download of Electron's binary, `npm start` waits this long before trying again. */
export const ELECTRON_RETRY_AFTER_MS = 24 * 60 * 60 * 1000;

export interface ElectronDownloadFacts {
  readonly binaryPresent: boolean;
  readonly display: boolean;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** When the last attempt failed (ms since the epoch), if one did. */
  readonly lastFailureAt?: number;
  readonly now: number;
}

/**
 * Whether `npm start` should let Electron's own installer fetch its binary:
 * on a desktop (a display) without one, not in CI, not when the person said
 * not to (ELECTRON_SKIP_BINARY_DOWNLOAD), and not again within a day of a
 * failed try (an unreachable host must not slow every start). Why not, in
 * words, when not (pure).
 */
export function electronDownloadDecision(facts: ElectronDownloadFacts): { readonly attempt: true } | { readonly attempt: false; readonly why: string } {
  if (facts.binaryPresent) return { attempt: false, why: "Electron's binary is installed" };
  if (!facts.display) return { attempt: false, why: 'there is no display for a window' };
  if (facts.env['CI']) return { attempt: false, why: 'this is CI (ELECTRON_SKIP_BINARY_DOWNLOAD)' };
  const skip = facts.env['ELECTRON_SKIP_BINARY_DOWNLOAD'];
  if (skip !== undefined && skip !== '' && skip !== '0') return { attempt: false, why: 'ELECTRON_SKIP_BINARY_DOWNLOAD is set' };
  if (facts.lastFailureAt !== undefined && facts.now - facts.lastFailureAt < ELECTRON_RETRY_AFTER_MS)
    return { attempt: false, why: 'its download failed less than a day ago (delete node_modules/.pipefill-electron-download-failed to try again)' };
  return { attempt: true };
}
