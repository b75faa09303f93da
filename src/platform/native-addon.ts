// Loading Pipefill's own N-API addons (native/<name>/build/Release/*.node).
// They are built by `npm test`, `npm start` and `npm run pipefill` where a
// compiler and their headers exist; everywhere else (not built, another OS,
// a failed build) the caller gets the reason and uses its plain-Node path.

import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { packageRoot } from './package-root.js';

export type AddonLoad<T> = { readonly available: true; readonly addon: T } | { readonly available: false; readonly reason: string };

/** Where node-gyp puts an addon, whichever build of Pipefill is running. */
export function addonPath(directory: string, target: string): string {
  return join(packageRoot(), 'native', directory, 'build', 'Release', `${target}.node`);
}

/**
 * Loads an addon, or says why it cannot. `what` names it in the reason
 * ("the libiperf binding"); `whenBuilt` says when it is built, for a reason
 * that tells the reader what to do.
 */
export function loadAddon<T>(path: string, what: string, whenBuilt: string): AddonLoad<T> {
  if (!existsSync(path)) return { available: false, reason: `${what} is not built (${path} is missing; it builds with npm test or npm start ${whenBuilt})` };
  try {
    return { available: true, addon: createRequire(import.meta.url)(path) as T };
  } catch (error) {
    return { available: false, reason: `${what} did not load: ${error instanceof Error ? error.message : String(error)}` };
  }
}
