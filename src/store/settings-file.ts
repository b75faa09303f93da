// The services' settings (src/contract/settings.ts) in a small JSON file in
// the data folder, beside the default history: written whole, by a temporary
// file renamed into place, mode 0600, in a folder of this user's own and
// never through a link (the read refuses links too). A file that is missing, too large, not
// JSON or not settings reads as the defaults (and is replaced on the next
// change): a damaged settings file must not stop the app.

import { lstatSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Settings } from '../contract/settings.js';
import { DEFAULT_SETTINGS, SettingsSchema } from '../contract/settings.js';
import { PipefillError } from '../model/errors.js';
import { dataDirectory } from '../platform/data-dir.js';
import { ownedDirectory, replaceFile, UnsafePathError } from '../platform/safe-file.js';

const SETTINGS_FILE = 'settings.json';
const MAX_SETTINGS_BYTES = 64 * 1024;

export function settingsPath(env: NodeJS.ProcessEnv = process.env): string {
  return join(dataDirectory(env), SETTINGS_FILE);
}

export function readSettings(path: string = settingsPath()): Settings {
  try {
    const stat = lstatSync(path);
    if (!stat.isFile() || stat.size > MAX_SETTINGS_BYTES) return DEFAULT_SETTINGS;
    const parsed = SettingsSchema.safeParse(JSON.parse(readFileSync(path, 'utf8')));
    return parsed.success ? parsed.data : DEFAULT_SETTINGS;
  } catch {
    return DEFAULT_SETTINGS;
  }
}

export function writeSettings(settings: Settings, path: string = settingsPath()): Settings {
  const checked = SettingsSchema.parse(settings);
  try {
    // In a folder of this user's own, never through a link planted there (issue 47).
    ownedDirectory(dirname(path));
    replaceFile(path, `${JSON.stringify(checked, null, 2)}\n`, { newMode: 0o600, ownFile: true });
  } catch (error) {
    if (error instanceof UnsafePathError) throw new PipefillError('settings-unwritable', `The setting could not be kept: ${error.message}`, error.hint);
    throw new PipefillError(
      'settings-unwritable',
      `The setting could not be kept in ${path}: ${error instanceof Error ? error.message : String(error)}.`,
      'It applies until Pipefill stops; make that folder writable (or set PIPEFILL_DATA_DIR) to keep it.',
    );
  }
  return checked;
}
