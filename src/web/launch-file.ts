// How the browser gets its launch address without it on a command line:
// every process on the machine can read another's command line
// (/proc/<pid>/cmdline), so `xdg-open http://…#launch=CODE` would hand the
// code to anyone watching. Instead the browser opens a small page in a
// folder only this account can read (0700, the file 0600) that sends it on
// to the address; the page is removed soon after. Jupyter opens its
// notebooks the same way, for the same reason.

import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { dataDirectory } from '../platform/data-dir.js';
import { createExclusive, privateDirectory } from '../platform/safe-file.js';

/** How long the hand-off page stays: a browser starts within this, even on a busy machine. */
export const LAUNCH_FILE_LIFETIME_MS = 2 * 60 * 1000;

const escapeAttribute = (text: string) => text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

export interface LaunchFile {
  /** The file:// address to give the browser: no secret in it. */
  readonly href: string;
  readonly path: string;
  remove(): void;
}

/** Writes the hand-off page for `launchUrl` (an http://127.0.0.1 address) and removes it after LAUNCH_FILE_LIFETIME_MS. */
export function writeLaunchFile(launchUrl: string, folder: string = join(dataDirectory(), 'runtime')): LaunchFile {
  if (!/^http:\/\/127\.0\.0\.1:\d+\/#launch=[A-Za-z0-9_-]+$/.test(launchUrl)) throw new Error(`Not a launch address: ${launchUrl.slice(0, 80)}`);
  mkdirSync(dirname(folder), { recursive: true, mode: 0o700 });
  privateDirectory(folder);
  const path = join(folder, `open-${randomBytes(8).toString('hex')}.html`);
  const url = escapeAttribute(launchUrl);
  createExclusive(
    path,
    `<!doctype html>\n<meta charset="utf-8">\n<meta name="referrer" content="no-referrer">\n<meta http-equiv="refresh" content="0;url=${url}">\n<title>Opening Pipefill</title>\n<p>Opening Pipefill… <a href="${url}">Continue</a></p>\n`,
  );
  let removed = false;
  const remove = () => {
    if (removed) return;
    removed = true;
    clearTimeout(timer);
    rmSync(path, { force: true });
  };
  const timer = setTimeout(remove, LAUNCH_FILE_LIFETIME_MS);
  timer.unref();
  return { href: pathToFileURL(path).href, path, remove };
}
