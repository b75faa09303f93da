// `npm run bench:smb`: set up as the tests do, then run the benchmark.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { ensureBuild, ensureDebianPackages, ensureNodeModules, ensureSupportedNode, root } from '../lib/setup.mjs';

ensureSupportedNode();
ensureNodeModules();
ensureDebianPackages({ smbd: 'samba', pdbedit: 'samba', smbclient: 'smbclient' });
ensureBuild();
const bench = spawn(process.execPath, ['--import', 'tsx', join(root, 'scripts/bench/smb.ts')], { cwd: root, stdio: 'inherit' });
// A SIGTERM sent to this process alone reaches the bench, which stops its servers and frees its tmpfs folder first.
for (const name of ['SIGINT', 'SIGTERM']) process.on(name, () => bench.kill(name));
bench.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
