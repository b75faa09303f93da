// `npm test`: the gate every change lands through, from a fresh clone.
// Installs what the tests need on first use, then lint (layering rules
// included), typecheck, and Vitest: unit, integration (smbd, PostgreSQL,
// iperf3 on loopback), e2e (Chromium) and the lab's smoke test. No assertion
// in it may fail on noise; the lab's fidelity experiments, which hold the
// model to measured links, are `npm run test:lab` (scripts/test-lab.mjs).
// Arguments go to Vitest: `npm test -- src/model` runs one folder.
// Ends with one plain line, "vitest: N passed, N failed, N skipped".

import { join } from 'node:path';
import { ensureBuild, ensureDebianPackages, ensureNodeModules, ensureSupportedNode, root, runStep } from './lib/setup.mjs';
import { FIDELITY_TESTS, finish, runVitest } from './lib/vitest-run.mjs';

ensureSupportedNode();
ensureNodeModules();
// The integration tests start their own servers from Debian's packages, and
// the WAN lab builds its forwarder and joins network namespaces, and node-gyp
// builds the libiperf binding.
ensureDebianPackages({
  smbd: 'samba',
  pdbedit: 'samba',
  smbclient: 'smbclient',
  iperf3: 'iperf3',
  '/usr/include/iperf_api.h': 'libiperf-dev',
  ip: 'iproute2',
  ss: 'iproute2',
  cc: 'gcc',
  'g++': 'g++',
  make: 'make',
  python3: 'python3',
  // The e2e tests drive the web mode in Debian's Chromium, which also prints
  // the PDF export; pdftoppm renders its pages to PNG for a look.
  chromium: 'chromium',
  pdftoppm: 'poppler-utils',
  // The history store's PostgreSQL backend is tested against a server the tests start.
  '/usr/lib/postgresql': 'postgresql',
  // Kerberos: the addon builds against MIT's headers, and the tests run a domain of their own
  // (Samba's AD DC and its schema, kinit for ticket caches, libfaketime for a file server's clock).
  '/usr/include/gssapi/gssapi_krb5.h': 'libkrb5-dev',
  '/usr/share/doc/samba-ad-dc': 'samba-ad-dc',
  '/usr/share/samba/setup/ad-schema': 'samba-ad-provision',
  kinit: 'krb5-user',
  faketime: 'faketime',
  // NAS-style shares: macOS support, streams and a recycle bin (vfs fruit, streams_xattr, recycle).
  '/usr/lib/x86_64-linux-gnu/samba/vfs/recycle.so': 'samba-vfs-modules',
  // impacket's and quicksand's servers run from PyPI in a venv the tests make.
  '/usr/lib/python3.11/ensurepip': 'python3-venv',
});
// The lab runs the built CLI inside its namespaces.
ensureBuild();

const bin = (name) => join(root, 'node_modules', '.bin', name);
/** What the formatter holds (package.json's format and lint scripts name the same). */
const FORMATTED = ['src/**/*.{ts,tsx}', 'app/**/*.{ts,tsx,cts}', 'e2e/**/*.ts', 'scripts/**/*.{mjs,ts}', 'bin/**/*.js', '*.{ts,js}'];
const vitestArgs = process.argv.slice(2);
if (vitestArgs.length === 0) {
  runStep('lint (eslint)', bin('eslint'), ['.', '--max-warnings', '0']);
  // Informational: functions that have grown past about 80 lines, the ones to split before lint's 120 fails them.
  runStep('long functions (flagged, not failed)', process.execPath, [join(root, 'scripts', 'long-functions.mjs')]);
  runStep('format (prettier --check; `npm run format` fixes it)', bin('prettier'), ['--check', ...FORMATTED]);
  runStep('typecheck (tsc, all sources)', bin('tsc'), ['-p', 'tsconfig.json', '--noEmit']);
  runStep('typecheck (tsc, src/model without Node or DOM)', bin('tsc'), ['-p', 'src/model/tsconfig.json', '--noEmit']);
  runStep('typecheck (tsc, Electron main and preload)', bin('tsc'), ['-p', 'app/tsconfig.json', '--noEmit']);
  runStep('typecheck (tsc, the page: DOM, no Node)', bin('tsc'), ['-p', 'app/renderer/tsconfig.json']);
}

// Every test but the lab's fidelity experiments, files in parallel: the WAN
// lab itself is checked here by its smoke test (src/lab/lab-smoke.int.test.ts),
// whose bounds are physics, not the model. The experiments are `npm run test:lab`.
const runs = [
  runVitest(vitestArgs.length > 0 ? 'selected' : 'all but the lab experiments', [...FIDELITY_TESTS.flatMap((glob) => ['--exclude', glob]), ...vitestArgs]),
];
finish(runs);
