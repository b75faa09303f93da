// One timed Pipefill transfer in a process of its own (plain Node on the
// built code, so its peak RSS is the engine's and not a TypeScript loader's).
// Usage: node smb-worker.mjs <read|write> <path> <bytes> <verify:0|1> [local source file, for writes]
// Share, login and the probed path come from PIPEFILL_BENCH_* variables. Prints one JSON line.

import { readFileSync } from 'node:fs';
import { CLIENT_PROFILES } from '../../dist/model/client-profiles.js';
import { pipelineFor } from '../../dist/copy/drivers.js';
import { Access, CreateOption, Disposition } from '../../dist/smb/messages.js';
import { LocalSource } from '../../dist/copy/local-source.js';
import { PatternSource } from '../../dist/copy/pattern.js';
import { SmbSession } from '../../dist/smb/session.js';
import { TimelineRecorder } from '../../dist/copy/timeline.js';
import { transferFile } from '../../dist/copy/transfer.js';

const [op, path, bytesText, verifyText, localPath] = process.argv.slice(2);
const local = op === 'write' && localPath ? LocalSource.forFile(localPath) : undefined;
const bytes = Number(bytesText);
const env = process.env;
const session = await SmbSession.open(
  { host: env.PIPEFILL_BENCH_HOST, port: Number(env.PIPEFILL_BENCH_PORT), share: env.PIPEFILL_BENCH_SHARE },
  { user: env.PIPEFILL_BENCH_USER, password: env.PIPEFILL_BENCH_PASSWORD },
);
const profile = CLIENT_PROFILES['pipefill-max'];
// The path as the bench probed it: pipefill-max sizes its pipeline to it, as in an assessment.
const link = env.PIPEFILL_BENCH_LINK_BPS
  ? { bandwidthBitsPerSecond: Number(env.PIPEFILL_BENCH_LINK_BPS), rttMs: Number(env.PIPEFILL_BENCH_RTT_MS) }
  : undefined;
const started = performance.now();
const { fileId } = await session.create(
  op === 'read'
    ? { path, access: Access.readData | Access.readAttributes, disposition: Disposition.open, options: CreateOption.nonDirectory }
    : { path, access: Access.readData | Access.writeData | Access.readAttributes, disposition: Disposition.overwriteIf, options: CreateOption.nonDirectory },
);
const recorder = new TimelineRecorder();
await transferFile({
  session,
  fileId,
  op,
  fileBytes: bytes,
  pipeline: pipelineFor(profile, session.negotiated, op, bytes, link),
  pattern: new PatternSource('bench', 'bench.bin'),
  ...(local ? { source: local.writeSource('') } : {}),
  verify: verifyText === '1',
  recorder,
  label: path,
});
await session.close(fileId);
await local?.close();
const seconds = (performance.now() - started) / 1000;
await session.end();
// Peak RSS of this process image. Not getrusage's ru_maxrss: Linux keeps that
// across exec, so a worker spawned by a large parent would report the parent's peak.
const vmHwmKiB = Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? process.resourceUsage().maxRSS);
console.log(
  JSON.stringify({
    seconds,
    bytes: recorder.bytes,
    maxRssMiB: vmHwmKiB / 1024,
    writer: session.connection.writerKind,
    signing: session.negotiated.signing,
    encryption: session.negotiated.encryption,
  }),
);
