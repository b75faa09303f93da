// First-use set-up shared by `npm start`, `npm test` and `npm run pipefill`:
// install npm dependencies when they are missing or older than the lock file,
// and rebuild dist/ when a source file is newer than the last build. Anything
// these steps print goes to stderr, so a command's stdout stays its own.
// Only Node built-ins here: this runs before node_modules exists.

import { spawnSync } from 'node:child_process';
import { accessSync, constants, existsSync, readFileSync, readdirSync, statSync, writeFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

function writable(path) {
  try {
    accessSync(path, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * A set-up failure nobody foresaw ends the process with one line and what to
 * do, not Node's stack (PIPEFILL_DEBUG=1 shows it): `npm start`'s first
 * minute must never greet a person with a trace.
 */
export function endOnSetupErrors() {
  const end = (error) => {
    const message = (error instanceof Error ? error.message : String(error)).split('\n')[0];
    const code = typeof error === 'object' && error !== null ? error.code : undefined;
    const hint =
      code === 'EACCES' || code === 'EPERM'
        ? 'this user may not write there: run it in a clone of your own, or as the user who owns this one'
        : 'run it again with PIPEFILL_DEBUG=1 to see where, and report that';
    process.stderr.write(`pipefill: set-up failed: ${message} (${hint})\n`);
    if (process.env.PIPEFILL_DEBUG === '1' && error instanceof Error) process.stderr.write(`${error.stack}\n`);
    process.exit(1);
  };
  process.on('uncaughtException', end);
  process.on('unhandledRejection', end);
  // Set-up done: the app's own handler takes over (src/cli/unexpected-error.ts).
  return () => {
    process.off('uncaughtException', end);
    process.off('unhandledRejection', end);
  };
}

function mtime(path) {
  return existsSync(path) ? statSync(path).mtimeMs : 0;
}

function newestIn(directory, accept) {
  let newest = 0;
  if (!existsSync(directory)) return newest;
  for (const entry of readdirSync(directory, { withFileTypes: true })) {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestIn(path, accept));
    else if (accept(entry.name)) newest = Math.max(newest, mtime(path));
  }
  return newest;
}

/** Runs a set-up command with its output on stderr; exits the process if it fails. */
export function runStep(label, command, args, options = {}) {
  process.stderr.write(`pipefill: ${label}\n`);
  const result = spawnSync(command, args, { cwd: root, stdio: ['ignore', process.stderr, process.stderr], ...options });
  if (result.status !== 0) {
    process.stderr.write(`pipefill: ${label} failed (${result.error?.message ?? `exit ${result.status}`})\n`);
    process.exit(result.status || 1);
  }
}

export function ensureNodeModules() {
  const installed = join(root, 'node_modules', '.package-lock.json');
  // Addons are built against the headers of the Node that builds them (Pipefill's own take the
  // OpenSSL headers of that Node too): a clone first installed under another Node rebuilds them.
  const abiStamp = join(root, 'node_modules', '.pipefill-node-abi');
  const abi = `${process.versions.modules}\n`;
  const env = { ...process.env, ELECTRON_SKIP_BINARY_DOWNLOAD: '1' };
  if (mtime(installed) >= mtime(join(root, 'package-lock.json')) && existsSync(installed)) {
    if (existsSync(abiStamp) && readFileSync(abiStamp, 'utf8') === abi) return;
    for (const addon of readdirSync(join(root, 'native'))) rmSync(join(root, 'native', addon, 'build'), { recursive: true, force: true });
    runStep(`rebuilding npm addons for Node ${process.versions.node} (npm rebuild)`, 'npm', ['rebuild', '--loglevel=error'], { env });
    writeFileSync(abiStamp, abi);
    return;
  }
  // `npm install`, not `npm ci`: npm 11 writes a lock with only this
  // platform's optional packages (rollup, esbuild) and then `npm ci` calls
  // that same lock out of sync. `npm install` follows the lock and leaves it as it is.
  // --loglevel=error: a first install says what it does in these lines, not in npm's and node-gyp's chatter.
  runStep('installing npm dependencies (npm install)', 'npm', ['install', '--no-audit', '--no-fund', '--loglevel=error'], { env });
  writeFileSync(abiStamp, abi);
}

/**
 * Builds one of Pipefill's addons (native/<dir>) with node-gyp when it is
 * missing or older than its sources. A failure is not fatal: each addon has
 * a plain-Node path, and `fallback` says which. Node's own headers come from
 * the installed Node (include/node beside bin/), so node-gyp downloads nothing.
 */
function ensureAddon({ dir: name, target, what, fallback, missing }, quiet = false) {
  const dir = join(root, 'native', name);
  const built = join(dir, 'build', 'Release', `${target}.node`);
  // native/common holds headers more than one addon includes.
  const sources = Math.max(
    newestIn(join(dir, 'src'), () => true),
    newestIn(join(root, 'native', 'common'), () => true),
    mtime(join(dir, 'binding.gyp')),
  );
  if (mtime(built) >= sources) return true;
  if (missing) {
    // `quiet`: the caller has said in one line what to install (npm start).
    if (!quiet) process.stderr.write(`pipefill: ${what} is not built: ${missing}; ${fallback}\n`);
    return false;
  }
  const nodeDir = join(dirname(process.execPath), '..');
  const headers = existsSync(join(nodeDir, 'include', 'node', 'node_api.h')) ? [`--nodedir=${nodeDir}`] : [];
  process.stderr.write(`pipefill: building ${what} (node-gyp)\n`);
  // The compiler's lines are shown only when the build fails: a first install stays quiet.
  const result = spawnSync(process.execPath, [join(root, 'node_modules', 'node-gyp', 'bin', 'node-gyp.js'), 'rebuild', '--loglevel=warn', ...headers], {
    cwd: dir,
    stdio: ['ignore', 'pipe', 'pipe'],
    encoding: 'utf8',
  });
  if (result.status === 0) return true;
  process.stderr.write(`${result.stdout ?? ''}${result.stderr ?? ''}`);
  process.stderr.write(`pipefill: ${what} did not build (see above); ${fallback}\n`);
  return false;
}

/** The libiperf binding (native/iperf3); without it the probe runs the iperf3 executable. */
export function ensureIperfAddon(quiet = false) {
  return ensureAddon(
    {
      dir: 'iperf3',
      target: 'pipefill_iperf3',
      what: 'the libiperf binding',
      fallback: 'iperf3 tests will use the iperf3 executable',
      missing: existsSync('/usr/include/iperf_api.h') ? undefined : "Debian's libiperf-dev is missing (apt-get install libiperf-dev)",
    },
    quiet,
  );
}

/** Why an addon that uses the OpenSSL Node carries cannot build here, or undefined. */
function missingOpenSslHeaders() {
  const nodeDir = join(dirname(process.execPath), '..');
  return existsSync(join(nodeDir, 'include', 'node', 'openssl', 'evp.h')) ? undefined : 'this Node ships no OpenSSL headers (include/node/openssl)';
}

/**
 * The socket sender (native/sender, Linux only; it makes the test pattern
 * with the OpenSSL Node carries); without it connections send through Node's socket.
 */
export function ensureSenderAddon(quiet = false) {
  return ensureAddon(
    {
      dir: 'sender',
      target: 'pipefill_sender',
      what: 'the socket sender addon',
      fallback: "SMB requests will go through Node's socket",
      missing: process.platform === 'linux' ? missingOpenSslHeaders() : `it is Linux-only (this is ${process.platform})`,
    },
    quiet,
  );
}

/**
 * In-place AEAD for SMB 3 encryption (native/crypto) over the OpenSSL Node
 * carries; without it encrypted replies are opened with Node's Decipher and
 * encrypted writes sealed with Node's Cipher.
 */
export function ensureCryptoAddon(quiet = false) {
  return ensureAddon(
    {
      dir: 'crypto',
      target: 'pipefill_crypto',
      what: 'the in-place encryption addon',
      fallback: "encrypted SMB messages will be sealed and opened with Node's crypto (slower)",
      missing: missingOpenSslHeaders(),
    },
    quiet,
  );
}

/** Kerberos through the platform's GSS-API (native/gssapi, MIT krb5's libgssapi_krb5); without it logons use NTLMv2 and say why. */
export function ensureGssapiAddon(quiet = false) {
  return ensureAddon(
    {
      dir: 'gssapi',
      target: 'pipefill_gssapi',
      what: 'the Kerberos addon',
      fallback: 'logons will use NTLMv2 only',
      missing:
        process.platform !== 'linux'
          ? `it is built on Linux only so far (this is ${process.platform})`
          : existsSync('/usr/include/gssapi/gssapi_krb5.h')
            ? undefined
            : "MIT Kerberos's headers are missing (apt-get install libkrb5-dev)",
    },
    quiet,
  );
}

/**
 * Builds what is missing or stale. `options.withoutCompiler` (why no addon
 * can be built here) skips the addons, each of which has a plain-Node path;
 * `options.quiet` leaves out the lines on missing headers, which the caller
 * has already summed up in one install line.
 */
export function ensureBuild(options = {}) {
  if (!options.withoutCompiler) {
    ensureIperfAddon(options.quiet);
    ensureGssapiAddon(options.quiet);
    ensureSenderAddon(options.quiet);
    ensureCryptoAddon(options.quiet);
  }
  const stamp = join(root, 'dist', '.build-stamp');
  const sources = Math.max(
    newestIn(join(root, 'src'), (name) => name.endsWith('.ts') && !name.endsWith('.test.ts')),
    newestIn(join(root, 'app', 'renderer'), (name) => /\.(tsx?|css|html)$/.test(name) && !name.endsWith('.test.ts')),
    mtime(join(root, 'tsconfig.build.json')),
    mtime(join(root, 'tsconfig.base.json')),
    mtime(join(root, 'package-lock.json')),
  );
  if (existsSync(stamp) && mtime(stamp) >= sources) return;
  if (!writable(root) || (existsSync(join(root, 'dist')) && !writable(join(root, 'dist')))) {
    // A clone another user owns (an install shared by a team): its build is theirs to redo; the one there runs.
    if (existsSync(join(root, 'dist', 'cli', 'bin.js'))) {
      process.stderr.write(
        `pipefill: this clone's build is older than its sources, and ${root} is not this user's to rebuild: running the build that is there.\n`,
      );
      return;
    }
    process.stderr.write(`pipefill: ${root} is not built, and not this user's to build: run npm start in a clone of your own, or once as its owner.\n`);
    process.exit(1);
  }
  // A clean build: files removed from src/ must not linger in dist/.
  rmSync(join(root, 'dist'), { recursive: true, force: true });
  runStep('building (tsc)', process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json']);
  // The app's page (React, Chart.js) into dist/renderer; Electron's main and preload into dist/app.
  runStep('building the app page (vite)', process.execPath, [
    join(root, 'node_modules', 'vite', 'bin', 'vite.js'),
    'build',
    '--config',
    'app/renderer/vite.config.ts',
    '--logLevel',
    'warn',
  ]);
  runStep('building the Electron shell (tsc)', process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'app/tsconfig.json']);
  writeFileSync(stamp, `${new Date().toISOString()}\n`);
}

/**
 * Installs Debian packages the tests need when their commands are missing:
 * `{ smbd: 'samba' }` installs samba unless /usr/sbin/smbd exists;
 * `{ '/usr/include/iperf_api.h': 'libiperf-dev' }` unless that file exists. Needs root
 * (as on the project's machines and CI). A temporary policy-rc.d keeps the
 * packages from starting system services (a system smbd on port 445).
 */
/** The Debian packages of `commandToPackage` whose command (on the PATH) or file (an absolute path) is missing, each once. */
export function missingDebianPackages(commandToPackage) {
  const onPath = (command) =>
    command.startsWith('/') ? existsSync(command) : ['/usr/sbin', '/usr/bin', '/sbin', '/bin'].some((dir) => existsSync(join(dir, command)));
  return [
    ...new Set(
      Object.entries(commandToPackage)
        .filter(([command]) => !onPath(command))
        .map(([, pkg]) => pkg),
    ),
  ];
}

/**
 * What the app uses from Debian when it has it, and does without when not:
 * the demo share (samba, iperf3), the libiperf binding and the Kerberos addon
 * (their headers), and a compiler for Pipefill's addons.
 */
export const APP_PACKAGES = {
  smbd: 'samba',
  pdbedit: 'samba',
  iperf3: 'iperf3',
  '/usr/include/iperf_api.h': 'libiperf-dev',
  '/usr/include/gssapi/gssapi_krb5.h': 'libkrb5-dev',
  'g++': 'g++',
  make: 'make',
};

export function ensureDebianPackages(commandToPackage) {
  // A key is a command on the PATH, or an absolute path (a header, say).
  const missing = missingDebianPackages(commandToPackage);
  if (missing.length === 0) return;
  if (process.getuid?.() !== 0) {
    process.stderr.write(`pipefill: the tests need ${missing.join(', ')}; install them as root: sudo apt-get install -y ${missing.join(' ')}\n`);
    process.exit(1);
  }
  const policy = '/usr/sbin/policy-rc.d';
  const ownPolicy = !existsSync(policy);
  if (ownPolicy) writeFileSync(policy, '#!/bin/sh\n# pipefill: no services start while its test packages install\nexit 101\n', { mode: 0o755 });
  try {
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    runStep('apt-get update', 'apt-get', ['update', '-qq'], { env });
    runStep(`installing ${missing.join(', ')} (apt-get)`, 'apt-get', ['install', '-y', '-qq', '--no-install-recommends', ...missing], { env });
  } finally {
    if (ownPolicy) rmSync(policy, { force: true });
  }
}

export { ensureSupportedNode } from './node-runtime.mjs';
