// `npm run bench:capture [-- --mib N]`: `pipefill analyze` on a large capture
// (issue 53: 2 GB in constant memory, peak RSS under 300 MB, at 100 MB/s or
// more). The capture is made here, streamed to a temporary file: an SMB 3.1.1
// client writing and reading files in 1 MiB requests, eight in flight, over
// 1448-byte segments, as tcpdump writes it from an Ethernet link. The
// reference, measured in the same run on the same file: tcpdump reading it
// back (`tcpdump -r FILE -w /dev/null`), the tool a person would otherwise
// open it with. Medians of three runs each; the file is removed at the end.
import { Buffer } from 'node:buffer';
import { spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, statSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureBuild, ensureDebianPackages, ensureNodeModules, ensureSupportedNode, root } from '../lib/setup.mjs';

ensureSupportedNode();
ensureNodeModules();
ensureDebianPackages({ tcpdump: 'tcpdump' });
ensureBuild();
const { encodeHeader } = await import('../../dist/smb/protocol.js');

const mibArg = process.argv.indexOf('--mib');
const TARGET_MIB = mibArg > 0 ? Number(process.argv[mibArg + 1]) : 2048;
if (!(TARGET_MIB >= 16 && TARGET_MIB <= 16_384)) throw new Error('--mib is 16 to 16384');
const MSS = 1448;
const REQUEST = 1 << 20;
const DEPTH = 8;
const FILE_BYTES = 64 << 20;

const dir = mkdtempSync(join(tmpdir(), 'pipefill-bench-capture-'));
const path = join(dir, 'bench.pcap');

/** Writes the capture: returns its size. */
function makeCapture() {
  const fd = openSync(path, 'w');
  const pending = [];
  let pendingBytes = 0;
  const flush = () => {
    writeSync(fd, Buffer.concat(pending));
    pending.length = 0;
    pendingBytes = 0;
  };
  const put = (buffer) => {
    pending.push(buffer);
    pendingBytes += buffer.length;
    if (pendingBytes > 8 << 20) flush();
  };
  const header = Buffer.alloc(24);
  header.writeUInt32LE(0xa1b2c3d4, 0);
  header.writeUInt16LE(2, 4);
  header.writeUInt16LE(4, 6);
  header.writeUInt32LE(262_144, 16);
  header.writeUInt32LE(1, 20);
  put(header);
  let micros = 0;
  const seq = { client: 1000, server: 5000 };
  let written = 24;
  const packet = (fromServer, payload) => {
    const frame = Buffer.alloc(14 + 20 + 20 + payload.length);
    frame.writeUInt16BE(0x0800, 12);
    frame[14] = 0x45;
    frame.writeUInt16BE(40 + payload.length, 16);
    frame[23] = 6;
    Buffer.from(fromServer ? [10, 0, 0, 2] : [10, 0, 0, 1]).copy(frame, 26);
    Buffer.from(fromServer ? [10, 0, 0, 1] : [10, 0, 0, 2]).copy(frame, 30);
    frame.writeUInt16BE(fromServer ? 445 : 50_000, 34);
    frame.writeUInt16BE(fromServer ? 50_000 : 445, 36);
    frame.writeUInt32BE(fromServer ? seq.server : seq.client, 38);
    frame.writeUInt32BE(fromServer ? seq.client : seq.server, 42);
    frame[46] = 0x50;
    frame[47] = 0x10;
    frame.writeUInt16BE(65_535, 48);
    payload.copy(frame, 54);
    if (fromServer) seq.server = (seq.server + payload.length) >>> 0;
    else seq.client = (seq.client + payload.length) >>> 0;
    micros += 3;
    const record = Buffer.alloc(16);
    record.writeUInt32LE(1_700_000_000 + Math.floor(micros / 1e6), 0);
    record.writeUInt32LE(micros % 1e6, 4);
    record.writeUInt32LE(frame.length, 8);
    record.writeUInt32LE(frame.length, 12);
    put(record);
    put(frame);
    written += 16 + frame.length;
  };
  const message = (fromServer, fields, body) => {
    const smb = Buffer.concat([
      encodeHeader({
        creditCharge: fields.charge,
        command: fields.command,
        credits: 64,
        flags: fromServer ? 1 : 0,
        nextCommand: 0,
        messageId: fields.id,
        treeId: 1,
        sessionId: 1n,
      }),
      body,
    ]);
    const framed = Buffer.alloc(4 + smb.length);
    framed.writeUInt32BE(smb.length, 0);
    smb.copy(framed, 4);
    for (let at = 0; at < framed.length; at += MSS) packet(fromServer, framed.subarray(at, at + MSS));
  };
  const data = Buffer.alloc(REQUEST, 0x5a);
  let id = 1n;
  for (let file = 1; written < TARGET_MIB * 2 ** 20; file++) {
    const fileId = Buffer.alloc(16);
    fileId.writeUInt32LE(file, 0);
    const write = file % 2 === 1;
    for (let offset = 0; offset < FILE_BYTES; offset += REQUEST * DEPTH) {
      const ids = [];
      for (let k = 0; k < DEPTH; k++) {
        const body = Buffer.alloc(48);
        body.writeUInt16LE(49, 0);
        body.writeUInt32LE(REQUEST, 4);
        body.writeBigUInt64LE(BigInt(offset + k * REQUEST), 8);
        fileId.copy(body, 16);
        message(false, { command: write ? 9 : 8, id, charge: 16 }, write ? Buffer.concat([body, data]) : body.subarray(0, 49));
        ids.push(id++);
      }
      for (const answered of ids) {
        const body = Buffer.alloc(16);
        body.writeUInt16LE(17, 0);
        body[2] = 80;
        body.writeUInt32LE(REQUEST, 4);
        message(true, { command: write ? 9 : 8, id: answered, charge: 16 }, write ? body : Buffer.concat([body, data]));
      }
    }
  }
  flush();
  closeSync(fd);
  return statSync(path).size;
}

/** Seconds and peak RSS (KiB) of a command, by GNU time. */
function timed(command, args) {
  const run = spawnSync('/usr/bin/time', ['-f', '%e %M', command, ...args], { encoding: 'utf8', maxBuffer: 64 << 20 });
  if (run.status !== 0) throw new Error(`${command} failed: ${run.stderr}`);
  const [seconds, kib] = run.stderr.trim().split('\n').at(-1).split(' ').map(Number);
  return { seconds, kib, stdout: run.stdout };
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

try {
  const bytes = makeCapture();
  const mb = bytes / 1e6;
  const ours = [];
  const reference = [];
  for (let round = 0; round < 3; round++) {
    ours.push(timed(process.execPath, [join(root, 'dist/cli/bin.js'), 'analyze', path, '--json']));
    reference.push(timed('tcpdump', ['-r', path, '-w', '/dev/null']));
  }
  // What it found, so a fast wrong answer does not pass for a fast right one.
  const copies = JSON.parse(ours[0].stdout).connections.flatMap((connection) => connection.copies);
  const whole = copies.filter((copy) => copy.bytes === FILE_BYTES && copy.requestBytes === REQUEST && copy.maxInFlight === DEPTH);
  const oursSeconds = median(ours.map((run) => run.seconds));
  const referenceSeconds = median(reference.map((run) => run.seconds));
  const rss = median(ours.map((run) => run.kib)) / 1024;
  process.stdout.write(
    [
      `capture: ${mb.toFixed(0)} MB (${TARGET_MIB} MiB asked), SMB 3.1.1 writes and reads of 1 MiB requests, 8 in flight, 1448-byte segments`,
      `pipefill analyze: ${oursSeconds.toFixed(2)} s median of 3 = ${(mb / oursSeconds).toFixed(0)} MB/s (target >= 100), peak RSS ${rss.toFixed(0)} MiB (target < 300)`,
      `tcpdump -r (reference, same file): ${referenceSeconds.toFixed(2)} s = ${(mb / referenceSeconds).toFixed(0)} MB/s`,
      `ratio pipefill / tcpdump time: ${(oursSeconds / referenceSeconds).toFixed(2)}`,
      `found: ${copies.length} copies, ${whole.length} of them whole (${FILE_BYTES / 2 ** 20} MiB in 1 MiB requests, ${DEPTH} in flight); the last may be cut by the capture's end`,
    ].join('\n') + '\n',
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
