// `npm run bench:wan`: the default lab matrix (issue 4). Three links, five
// client generations, read and write of a 32 MiB file, each beside iperf3,
// smbclient and the model. Linux, root. Extra arguments go to `lab bench`.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { ensureBuild, ensureDebianPackages, ensureNodeModules, root } from '../lib/setup.mjs';

ensureNodeModules();
ensureDebianPackages({ smbd: 'samba', smbpasswd: 'samba', smbclient: 'smbclient', iperf3: 'iperf3', ip: 'iproute2', cc: 'gcc' });
ensureBuild();
const run = spawnSync(process.execPath, [join(root, 'dist/cli/bin.js'), 'lab', 'bench', ...process.argv.slice(2)], { cwd: root, stdio: 'inherit' });
process.exit(run.status ?? 1);
