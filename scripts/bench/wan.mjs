// `npm run bench:wan`: the default lab matrix (issue 4). Three links, five
// client generations, read and write of a 16 MiB file, each beside the model;
// iperf3, smbclient and pipefill-max on a copy of ~4 s at line rate. 16 MiB,
// not 32: XP's one-request-at-a-time copies take a minute each at 75 ms, and
// the matrix must stay under 10 minutes (32 MiB took 654 s). Linux, root.
// Extra arguments go to `lab bench` (a later --size wins).
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { ensureBuild, ensureDebianPackages, ensureNodeModules, ensureSupportedNode, root } from '../lib/setup.mjs';

ensureSupportedNode();
ensureNodeModules();
ensureDebianPackages({ smbd: 'samba', pdbedit: 'samba', smbclient: 'smbclient', iperf3: 'iperf3', ip: 'iproute2', cc: 'gcc' });
ensureBuild();
const { ENGINE_NODE_FLAGS } = await import('../../dist/platform/engine-flags.js');
const run = spawnSync(process.execPath, [...ENGINE_NODE_FLAGS, join(root, 'dist/cli/bin.js'), 'lab', 'bench', '--size', '16MiB', ...process.argv.slice(2)], {
  cwd: root,
  stdio: 'inherit',
});
process.exit(run.status ?? 1);
