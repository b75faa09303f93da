// `npm test`: the gate every change lands through, from a fresh clone.
// Installs what the tests need on first use, then Vitest (unit, integration:
// smbd, PostgreSQL, iperf3 on loopback; e2e in Chromium; the lab's smoke test)
// with lint (layering rules included), format and typecheck beside it
// (scripts/lib/static-checks.mjs). No assertion
// in it may fail on noise; the lab's fidelity experiments, which hold the
// model to measured links, are `npm run test:lab` (scripts/test-lab.mjs).
// Arguments go to Vitest: `npm test -- src/model` runs one folder.
// Ends with one plain line, "vitest: N passed, N failed, N skipped".

import { ensureBuild, ensureDebianPackages, ensureNodeModules, ensureSupportedNode } from './lib/setup.mjs';
import { startStaticChecks } from './lib/static-checks.mjs';
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
  // `pipefill analyze` is tested on captures tcpdump makes of real copies.
  tcpdump: 'tcpdump',
  // impacket's and quicksand's servers run from PyPI in a venv the tests make.
  '/usr/lib/python3.11/ensurepip': 'python3-venv',
});
// The lab runs the built CLI inside its namespaces.
ensureBuild();

const vitestArgs = process.argv.slice(2);
// Lint, format and the typechecks run beside the tests, not before them: they are CPU work, most of the tests wait on
// servers, and one after the other they took a fresh clone on a busy two-core machine past 15 minutes (936 s).
const checks = vitestArgs.length === 0 ? startStaticChecks() : undefined;
const runs = [
  runVitest(vitestArgs.length > 0 ? 'selected' : 'all but the lab experiments', [...FIDELITY_TESTS.flatMap((glob) => ['--exclude', glob]), ...vitestArgs]),
];
if (checks) runs.push(await checks);
finish(runs);
