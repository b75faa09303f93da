// `npm run bench:smb`: set up as the tests do, then run the benchmark.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { ensureBuild, ensureDebianPackages, ensureNodeModules, root } from '../lib/setup.mjs';

ensureNodeModules();
ensureDebianPackages({ smbd: 'samba', smbpasswd: 'samba', smbclient: 'smbclient' });
ensureBuild();
const run = spawnSync(process.execPath, ['--import', 'tsx', join(root, 'scripts/bench/smb.ts')], { cwd: root, stdio: 'inherit' });
process.exit(run.status ?? 1);
