// npm run bench:smb — Pipefill's engine against smbclient and node-smb2's own
// readFile / createFile, on loopback, same server, same file, same run.
// Prints MB/s (medians of ROUNDS runs), the ratios, and peak RSS of a 1 GiB
// copy. Targets (issue 3): pipefill-max >= 1.0 x smbclient for a 256 MiB
// file, read and write; < 200 MB RSS for a 1 GiB copy. Issue 15 adds the
// CLI's own copy-test (the path a person runs, no probe first), >= 1.0 x. Issue 12 adds two
// servers of the same run: one that requires signing (against smbclient
// --client-protection=sign) and one that requires encryption (against
// --client-protection=encrypt), the same targets, and the bytes per second
// one core signs and seals with Pipefill's own code (the model's figure).
// Issue 37: the CLI's write as a person runs it, plain, signed and sealed,
// with nothing warmed (smb-cold-writes.ts), >= 1.0 x smbclient put.

import { spawn, spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { chmodSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLoopbackServers } from '../../src/lab/loopback-servers.js';
import { withAuthenticationFileWhile } from '../../src/lab/smbclient-auth.js';
import { freshDirectory } from '../../src/platform/safe-file.js';
import type { SambaServer } from '../../src/lab/samba.js';
import { SambaServer as Samba } from '../../src/lab/samba.js';
import { probePath } from '../../src/probe/probe-path.js';
import { CLIENT_PROFILES } from '../../src/model/client-profiles.js';
import { PatternSource } from '../../src/copy/pattern.js';
import { cryptoPerCore, median, patternFile, warmAllocator } from './smb-helpers.js';
import { cliCopyTest, coldCliWrites, pipefillJson, PROTECTIONS, smbclientRate } from './smb-cold-writes.js';

const pipefillOffer = CLIENT_PROFILES['pipefill-max'].offer;
const ROUNDS = Number(process.env['PIPEFILL_BENCH_ROUNDS'] ?? 5);
const FILE_BYTES = 256 * 2 ** 20;
const BIG_BYTES = 2 ** 30;
const MB = 1e6;
const root = join(import.meta.dirname, '..', '..');

// Everything on tmpfs lives in one folder of the bench's own with an unguessable name (as root, a
// guessable /dev/shm name could be a planted link).
const benchDir = freshDirectory('/dev/shm', 'pipefill-bench-');
// smbd serves the shares below it as the share's own user, who must be able to pass through (0700 denied every open).
chmodSync(benchDir, 0o755);
const servers = await startLoopbackServers({ sharePath: join(benchDir, 'share') });
const server = servers.samba;
// The same share twice more, behind servers that require signing and encryption.
const protectedServers: Record<'sign' | 'encrypt', SambaServer> = {
  sign: await Samba.start({ sharePath: join(benchDir, 'share-sign'), globals: { 'server signing': 'mandatory' } }),
  encrypt: await Samba.start({ sharePath: join(benchDir, 'share-encrypt'), globals: { 'server smb encrypt': 'required' } }),
};

const local = join(benchDir, 'local.bin');

/** Stops every server and frees the tmpfs folder (about 1.5 GiB of memory while it stands). Once. */
let cleanedUp: Promise<void> | undefined;
const cleanUp = () =>
  (cleanedUp ??= (async () => {
    for (const target of Object.values(protectedServers)) await target.stop();
    await servers.stop();
    rmSync(benchDir, { recursive: true, force: true });
  })());
// Stopped by Ctrl-C or SIGTERM, the bench still cleans up: its smbd run in process groups of their own, which a
// terminal's Ctrl-C does not reach, and its folder is memory until the machine restarts.
// (A terminal's Ctrl-C arrives twice, from the terminal and forwarded by smb.mjs: the clean-up runs once.)
for (const name of ['SIGINT', 'SIGTERM'] as const) {
  process.on(name, () => {
    if (cleanedUp) return;
    console.error(`\n${name}: stopping the bench's servers and removing ${benchDir}`);
    void cleanUp().finally(() => process.exit(name === 'SIGINT' ? 130 : 143));
  });
}
try {
  // pipefill-max is sized to the path, as an assessment sizes it after its probe.
  const probe = await probePath(server.share, server.credentials, { iperf: { host: '127.0.0.1', port: servers.iperfPort }, seconds: 2 });
  console.log(
    `Path (as an assessment probes it): RTT ${probe.rtt.medianMs.toFixed(2)} ms, ${(probe.bandwidth.mbps / 1000).toFixed(1)} Gb/s by ${probe.bandwidth.method}`,
  );
  patternFile(join(server.sharePath, 'bench.bin'), FILE_BYTES);
  patternFile(local, FILE_BYTES);
  const workerEnv = {
    ...process.env,
    PIPEFILL_BENCH_HOST: server.share.host,
    PIPEFILL_BENCH_PORT: String(server.share.port),
    PIPEFILL_BENCH_SHARE: server.share.share,
    PIPEFILL_BENCH_USER: server.credentials.user,
    PIPEFILL_BENCH_PASSWORD: server.credentials.password,
    PIPEFILL_BENCH_LINK_BPS: String(probe.bandwidth.mbps * 1e6),
    PIPEFILL_BENCH_RTT_MS: String(probe.rtt.medianMs),
  };

  for (const target of Object.values(protectedServers)) patternFile(join(target.sharePath, 'bench.bin'), FILE_BYTES);
  const used: Record<'sign' | 'encrypt', string> = { sign: '?', encrypt: '?' };
  // Writes stream a local file, as smbclient put does (the same file, on tmpfs). Every write makes a new
  // file on the share and removes it afterwards, as the CLI's copy-test does in its scratch folder, so the
  // share holds the same between any two measurements.
  const putAndRemove = (name: string) => `put ${local} ${name}; del ${name}`;
  const writers = new Set<string>();
  const pipefill = (
    op: 'read' | 'write',
    path: string,
    bytes: number,
    verify: boolean,
    localFile = local,
    extraEnv: Record<string, string> = {},
    protection?: 'sign' | 'encrypt',
  ) => {
    const target = protection ? protectedServers[protection] : server;
    const env = { ...workerEnv, PIPEFILL_BENCH_PORT: String(target.share.port), PIPEFILL_BENCH_PASSWORD: target.credentials.password, ...extraEnv };
    const run = spawnSync(process.execPath, [join(root, 'scripts/bench/smb-worker.mjs'), op, path, String(bytes), verify ? '1' : '0', localFile], {
      env,
      encoding: 'utf8',
    });
    if (run.status !== 0) throw new Error(`pipefill worker failed: ${run.stderr}`);
    const result = JSON.parse(run.stdout.trim().split('\n').pop() ?? '{}') as {
      seconds: number;
      bytes: number;
      maxRssMiB: number;
      writer: string;
      signing: string | null;
      encryption: string | null;
    };
    writers.add(
      `${op}${extraEnv['PIPEFILL_NATIVE_SEND'] === '0' ? ' (socket forced)' : ''}${protection ? ` (${result.encryption ?? result.signing})` : ''} via ${result.writer}`,
    );
    if (protection) used[protection] = result.encryption ?? result.signing ?? 'none';
    if (op === 'write') rmSync(join(target.sharePath, path), { force: true });
    return result;
  };

  const smbclient = (command: string, protection?: 'sign' | 'encrypt') =>
    smbclientRate(protection ? protectedServers[protection] : server, protection ?? 'plain', command);

  // node-smb2's own whole-file API: 64 KiB requests, one at a time.
  const require = createRequire(import.meta.url);
  const { Client } = require('node-smb2') as {
    Client: new (
      host: string,
      options: { port: number },
    ) => {
      authenticate(o: object): Promise<{
        connectTree(
          s: string,
        ): Promise<{ readFile(p: string): Promise<Buffer>; createFile(p: string, c: Buffer): Promise<void>; removeFile(p: string): Promise<void> }>;
      }>;
      close(): Promise<void>;
    };
  };
  const nodeSmb2 = async (op: 'read' | 'write') => {
    const log = console.log;
    console.log = () => undefined; // node-smb2 announces its NTLM version on stdout
    try {
      const client = new Client(server.share.host, { port: server.share.port });
      const session = await client.authenticate({
        domain: '',
        username: server.credentials.user,
        password: server.credentials.password,
        forceNtlmVersion: 'v2',
      });
      const tree = await session.connectTree(server.share.share);
      const data = op === 'write' ? new PatternSource('bench', 'bench.bin').bytes(0, FILE_BYTES) : undefined;
      const started = performance.now();
      if (op === 'read') await tree.readFile('bench.bin');
      else await tree.createFile('node-smb2-put.bin', data ?? Buffer.alloc(0));
      const seconds = (performance.now() - started) / 1000;
      if (op === 'write') await tree.removeFile('node-smb2-put.bin');
      await client.close();
      return FILE_BYTES / seconds / MB;
    } finally {
      console.log = log;
    }
  };

  const results: Record<string, number[]> = {};
  const add = (name: string, value: number) => (results[name] ??= []).push(value);
  const rss: Record<string, number> = {};
  const noteRss = (name: string, mib: number) => (rss[name] = Math.max(rss[name] ?? 0, mib));
  const measurements: [string, () => Promise<number> | number][] = [
    [
      'pipefill-max read',
      () => {
        const r = pipefill('read', 'bench.bin', FILE_BYTES, false);
        noteRss('read', r.maxRssMiB);
        return FILE_BYTES / r.seconds / MB;
      },
    ],
    [
      'pipefill-max read, every byte verified',
      () => {
        const r = pipefill('read', 'bench.bin', FILE_BYTES, true);
        noteRss('verified read', r.maxRssMiB);
        return FILE_BYTES / r.seconds / MB;
      },
    ],
    [
      'pipefill-max write',
      () => {
        const r = pipefill('write', 'pipefill-put.bin', FILE_BYTES, false);
        noteRss('write', r.maxRssMiB);
        return FILE_BYTES / r.seconds / MB;
      },
    ],
    // The same through Node's own socket (no sender addon): what other platforms get.
    [
      'pipefill-max write, Node socket',
      () => {
        const r = pipefill('write', 'pipefill-put.bin', FILE_BYTES, false, local, { PIPEFILL_NATIVE_SEND: '0' });
        noteRss('write, Node socket', r.maxRssMiB);
        return FILE_BYTES / r.seconds / MB;
      },
    ],
    // The CLI's read as a person runs it: no probe first, so its pipeline sizes itself from what it sees (issue 15).
    ['pipefill copy-test read (CLI, no probe)', () => cliCopyTest(root, server, 'read', FILE_BYTES)],
    ['smbclient get', () => smbclient('get bench.bin /dev/null')],
    ['smbclient put', () => smbclient(putAndRemove('smbclient-put.bin'))],
    ['node-smb2 readFile', () => nodeSmb2('read')],
    ['node-smb2 createFile', () => nodeSmb2('write')],
    ...(['sign', 'encrypt'] as const).flatMap((protection): [string, () => number][] => [
      [
        `pipefill-max read, ${protection}`,
        () => {
          const r = pipefill('read', 'bench.bin', FILE_BYTES, false, local, {}, protection);
          noteRss(`read, ${protection}`, r.maxRssMiB);
          return FILE_BYTES / r.seconds / MB;
        },
      ],
      [
        `pipefill-max write, ${protection}`,
        () => {
          const r = pipefill('write', 'pipefill-put.bin', FILE_BYTES, false, local, {}, protection);
          noteRss(`write, ${protection}`, r.maxRssMiB);
          return FILE_BYTES / r.seconds / MB;
        },
      ],
      [`smbclient get, ${protection}`, () => smbclient('get bench.bin /dev/null', protection)],
      [`smbclient put, ${protection}`, () => smbclient(putAndRemove('smbclient-put.bin'), protection)],
    ]),
  ];
  for (let round = 0; round < ROUNDS; round++) {
    // Alternate the order each round, so that neither side always runs on a warmer or busier machine.
    const order = round % 2 === 0 ? measurements : [...measurements].reverse();
    for (const [name, measure] of order) {
      warmAllocator(benchDir);
      add(name, await measure());
    }
  }
  // The CLI's writes with nothing warmed, each side laying down its own fresh source (smb-cold-writes.ts).
  const cold = coldCliWrites(root, { plain: server, sign: protectedServers.sign, encrypt: protectedServers.encrypt }, FILE_BYTES, ROUNDS);
  const big = { read: 0, write: 0 };
  patternFile(join(server.sharePath, 'big.bin'), BIG_BYTES);
  big.read = pipefill('read', 'big.bin', BIG_BYTES, true).maxRssMiB;
  const bigLocal = join(benchDir, 'big-local.bin');
  patternFile(bigLocal, BIG_BYTES);
  big.write = pipefill('write', 'big-put.bin', BIG_BYTES, false, bigLocal).maxRssMiB;
  const bigProtected: Record<string, number> = {};
  for (const protection of ['sign', 'encrypt'] as const) {
    patternFile(join(protectedServers[protection].sharePath, 'big.bin'), BIG_BYTES);
    bigProtected[`read (verified), ${protection}`] = pipefill('read', 'big.bin', BIG_BYTES, true, local, {}, protection).maxRssMiB;
    bigProtected[`write, ${protection}`] = pipefill('write', 'big-put.bin', BIG_BYTES, false, bigLocal, {}, protection).maxRssMiB;
    rmSync(join(protectedServers[protection].sharePath, 'big.bin'), { force: true });
    rmSync(join(protectedServers[protection].sharePath, 'big-put.bin'), { force: true });
  }
  rmSync(bigLocal, { force: true });
  rmSync(join(server.sharePath, 'big.bin'), { force: true });
  // Branch capacity (issue 16): one Pipefill process driving 16 people against 16 smbclient processes at once,
  // each reading a file of its own. Both read files the server holds unwritten (the capacity run sizes its
  // people's files with SET_INFO; smbclient's are truncated to size here), so neither side's server reads pages.
  const capacityResults: Record<'pipefill' | 'smbclient', number[]> = { pipefill: [], smbclient: [] };
  const PEOPLE = 16;
  const PERSON_BYTES = 512 * 2 ** 20;
  for (let person = 0; person < PEOPLE; person++) {
    const path = join(server.sharePath, `people-${person}.bin`);
    writeFileSync(path, Buffer.alloc(0));
    truncateSync(path, PERSON_BYTES);
  }
  const capacityCli = () => {
    const args = ['--profile', 'pipefill-max', '--op', 'read', '--clients', String(PEOPLE), '--file-size', `${PERSON_BYTES / 2 ** 20}MiB`];
    const result = pipefillJson<{ steps: { aggregateMbps: number }[] }>(root, server, 'capacity', [...args, '--seconds', '4', '--warmup', '1']);
    return ((result.steps[0]?.aggregateMbps ?? NaN) * 1e6) / 8 / MB;
  };
  /** All 16 files at once: their bytes over the time from the first start to the last exit. */
  const capacitySmbclient = () =>
    withAuthenticationFileWhile(server.credentials, async (auth) => {
      const started = performance.now();
      await Promise.all(
        Array.from(
          { length: PEOPLE },
          (_, person) =>
            new Promise<void>((resolve, reject) => {
              const child = spawn(
                'smbclient',
                [`//${server.share.host}/${server.share.share}`, '-p', String(server.share.port), '-A', auth, '-c', `get people-${person}.bin /dev/null`],
                { stdio: 'ignore' },
              );
              child.once('error', reject);
              child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`smbclient get exited with ${code}`))));
            }),
        ),
      );
      return (PEOPLE * PERSON_BYTES) / ((performance.now() - started) / 1000) / MB;
    });
  for (let round = 0; round < ROUNDS; round++) {
    warmAllocator(benchDir);
    if (round % 2 === 0) {
      capacityResults.pipefill.push(capacityCli());
      capacityResults.smbclient.push(await capacitySmbclient());
    } else {
      capacityResults.smbclient.push(await capacitySmbclient());
      capacityResults.pipefill.push(capacityCli());
    }
  }
  for (let person = 0; person < PEOPLE; person++) rmSync(join(server.sharePath, `people-${person}.bin`), { force: true });

  const smbclientOffers = (parameter: string) => spawnSync('testparm', ['-s', '-v', `--parameter-name=${parameter}`], { encoding: 'utf8' }).stdout.trim();

  const m = (name: string) => median(results[name] ?? []);
  const lines = [
    `SMB benchmark: 256 MiB file, loopback, smbd ${spawnSync('smbd', ['--version'], { encoding: 'utf8' }).stdout.trim()}, share on tmpfs, ${ROUNDS} rounds, medians (min-max)`,
    ...Object.entries(results).map(
      ([name, values]) => `  ${name.padEnd(40)} ${m(name).toFixed(0).padStart(6)} MB/s  (${Math.min(...values).toFixed(0)}-${Math.max(...values).toFixed(0)})`,
    ),
    'Ratios (target >= 1.0 against smbclient):',
    `  pipefill-max read  / smbclient get       ${(m('pipefill-max read') / m('smbclient get')).toFixed(2)}x`,
    `  pipefill-max write / smbclient put       ${(m('pipefill-max write') / m('smbclient put')).toFixed(2)}x`,
    `  copy-test read (CLI, no probe) / get     ${(m('pipefill copy-test read (CLI, no probe)') / m('smbclient get')).toFixed(2)}x`,
    `  (Node socket write / smbclient put       ${(m('pipefill-max write, Node socket') / m('smbclient put')).toFixed(2)}x)`,
    `  pipefill-max read  / node-smb2 readFile  ${(m('pipefill-max read') / m('node-smb2 readFile')).toFixed(2)}x`,
    `  pipefill-max write / node-smb2 createFile ${(m('pipefill-max write') / m('node-smb2 createFile')).toFixed(2)}x`,
    `  pipefill-max read  / smbclient get, sign    ${(m('pipefill-max read, sign') / m('smbclient get, sign')).toFixed(2)}x   (Pipefill: ${used.sign})`,
    `  pipefill-max write / smbclient put, sign    ${(m('pipefill-max write, sign') / m('smbclient put, sign')).toFixed(2)}x`,
    `  pipefill-max read  / smbclient get, encrypt ${(m('pipefill-max read, encrypt') / m('smbclient get, encrypt')).toFixed(2)}x   (Pipefill: ${used.encrypt})`,
    `  pipefill-max write / smbclient put, encrypt ${(m('pipefill-max write, encrypt') / m('smbclient put, encrypt')).toFixed(2)}x`,
    `The CLI's write as a person runs it (nothing warmed; each side lays down a fresh 256 MiB source in ${tmpdir()} and removes what it wrote), target >= 1.0x:`,
    ...PROTECTIONS.map((protection) => {
      const [cli, put] = [cold.cli[protection], cold.put[protection]];
      const range = (values: number[]) => `${median(values).toFixed(0)} MB/s (${Math.min(...values).toFixed(0)}-${Math.max(...values).toFixed(0)})`;
      return `  ${protection.padEnd(8)} copy-test write ${range(cli)}, smbclient put ${range(put)}: ${(median(cli) / median(put)).toFixed(2)}x`;
    }),
    `Capacity, ${PEOPLE} people reading ${PERSON_BYTES / 2 ** 20} MiB files each at once (target >= 0.9x): pipefill capacity (one process, 4 s after 1 s warm-up) ${median(capacityResults.pipefill).toFixed(0)} MB/s (${Math.min(...capacityResults.pipefill).toFixed(0)}-${Math.max(...capacityResults.pipefill).toFixed(0)}), ${PEOPLE} smbclient processes ${median(capacityResults.smbclient).toFixed(0)} MB/s (${Math.min(...capacityResults.smbclient).toFixed(0)}-${Math.max(...capacityResults.smbclient).toFixed(0)}, first start to last exit): ${(median(capacityResults.pipefill) / median(capacityResults.smbclient)).toFixed(2)}x`,
    `smbclient offers signing ${smbclientOffers('client smb3 signing algorithms')} and ciphers ${smbclientOffers('client smb3 encryption algorithms')} (testparm); Pipefill offers ${pipefillOffer.signing.join(', ')} and ${pipefillOffer.ciphers.join(', ')}: smbd picks the first it allows of each list.`,
    `Sent: ${[...writers].join('; ')}`,
    `Peak RSS of the Pipefill process, 256 MiB: ${Object.entries(rss)
      .map(([name, mib]) => `${name} ${mib.toFixed(0)} MiB`)
      .join(', ')}`,
    `Peak RSS, 1 GiB: read (verified) ${big.read.toFixed(0)} MiB, write ${big.write.toFixed(0)} MiB, ${Object.entries(bigProtected)
      .map(([name, mib]) => `${name} ${mib.toFixed(0)} MiB`)
      .join(', ')} (target < 200 MB = 191 MiB)`,
    `Pipefill's own signing and sealing, CPU time per byte (the model's figure):`,
    ...cryptoPerCore(),
  ];
  console.log(lines.join('\n'));
} finally {
  await cleanUp();
}
