// Where Pipefill keeps what outlives a run (the site history): the folder each
// desktop platform reserves for an application's own data. PIPEFILL_DATA_DIR
// overrides it (tests, portable installs).

import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';

export function dataDirectory(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform, home: string = homedir()): string {
  const own = env.PIPEFILL_DATA_DIR;
  if (own) return own;
  if (platform === 'win32') return join(env.APPDATA || join(home, 'AppData', 'Roaming'), 'Pipefill');
  if (platform === 'darwin') return join(home, 'Library', 'Application Support', 'Pipefill');
  // XDG Base Directory: a relative XDG_DATA_HOME is invalid and must be ignored.
  const xdg = env.XDG_DATA_HOME;
  return join(xdg && isAbsolute(xdg) ? xdg : join(home, '.local', 'share'), 'pipefill');
}
