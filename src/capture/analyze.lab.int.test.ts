// `pipefill analyze` on captures of real copies across the WAN lab's link
// (issue 53): tcpdump on the branch's side, as a person captures their own
// copy, while a client nobody on the project wrote copies a file to the
// lab's Samba and back (smbclient, smbprotocol, impacket, go-smb2) and while
// Pipefill's own Windows 10 emulation does, signed and sealed, against a
// default Samba and one set to `smb2 max credits = 16`. Each capture's round
// trip must be within 5% of the link's, and each copy's time within 15% of
// the model's with the path, client and server as the capture shows them and
// the line's rate given. Linux and root only.

import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { CaptureAnalysis } from '../contract/capture.js';
import { CaptureAnalysisSchema } from '../contract/capture.js';
import { DEVICE } from '../lab/lab-network.js';
import { inBranch, labDown, labEndpoints, labUp } from '../lab/wan-lab.js';
import { copyTest } from '../lab/bench.js';
import type { LabState } from '../lab/wan-lab.js';
import type { ClientCopy } from '../test-support/capture-clients.js';
import { clientCommand, goAvailable } from '../test-support/capture-clients.js';
import type { Observation } from '../test-support/lab-fidelity.js';
import { failures, holdBounds, withinRelative } from '../test-support/lab-fidelity.js';
import { startCapture, stopCapture } from '../test-support/tcpdump-capture.js';

const canRunLab = process.platform === 'linux' && process.getuid?.() === 0 && existsSync('/dev/net/tun');
if (!canRunLab) console.warn('SKIPPED: the capture lab test needs Linux, root and /dev/net/tun.');
const cli = new URL('../../dist/cli/bin.js', import.meta.url).pathname;

const LINK = { bandwidthBitsPerSecond: 50e6, rttMs: 40 };
// Not 8 MiB: Pipefill's warm-up moves one file of that size each way on each of its sessions.
const FILE_BYTES = 12 * 2 ** 20;
const SERVERS = [
  { name: 'default Samba', globals: {} },
  { name: 'smb2 max credits = 16', globals: { 'smb2 max credits': '16' } },
] as const;

type LabCopy = ClientCopy | { readonly client: 'pipefill'; readonly protection: 'signed' | 'sealed' };
const COPIES: readonly LabCopy[] = [
  { client: 'smbclient', protection: 'signed' },
  { client: 'smbprotocol', protection: 'signed' },
  { client: 'impacket', protection: 'signed' },
  { client: 'impacket', protection: 'sealed' },
  ...(goAvailable() ? [{ client: 'go-smb2', protection: 'signed' } as const] : []),
  { client: 'pipefill', protection: 'signed' },
  { client: 'pipefill', protection: 'sealed' },
];
if (!goAvailable()) console.warn('SKIPPED: go-smb2 needs Go (the go command) to build its client.');

/** Pipefill's own Windows 10 client: a write, then a read (which writes its file first). */
function pipefillCopy(state: LabState, protection: 'signed' | 'sealed'): void {
  for (const op of ['write', 'read'] as const)
    copyTest(state, 'win10-smb3', op, `file:${FILE_BYTES}B`, protection === 'sealed' ? ['--encrypt'] : ['--signing', 'required']);
}

/** One client's copy across the link, captured on the branch's side, and the capture analysed with the line given. */
async function capturedCopy(state: LabState, copy: LabCopy, dir: string): Promise<CaptureAnalysis> {
  const capture = join(dir, `${copy.client}-${copy.protection}-${randomBytes(3).toString('hex')}.pcap`);
  const tcpdump = await startCapture({ namespace: state.branch, device: DEVICE, port: 445 }, capture);
  try {
    if (copy.client === 'pipefill') pipefillCopy(state, copy.protection);
    else {
      const { share, user, password } = labEndpoints(state);
      const host = (share ?? '').split('/')[2] ?? '';
      const source = join(dir, 'source.bin');
      const [command = '', ...args] = clientCommand(copy, { host, port: 445 }, user ?? '', source, `${copy.client}-copy.bin`);
      const run = inBranch(state, command, args, { env: { ...process.env, PF_PASSWORD: password ?? '', PASSWD: password ?? '' }, timeoutMs: 300_000 });
      expect(run.status, `${copy.client}: ${run.stderr}${run.stdout}`).toBe(0);
    }
  } finally {
    await stopCapture(tcpdump, capture);
  }
  const analysed = inBranch(state, process.execPath, [cli, 'analyze', capture, '--bandwidth', `${LINK.bandwidthBitsPerSecond / 1e6}mbit`, '--json'], {
    timeoutMs: 120_000,
  });
  expect(analysed.status, analysed.stderr).toBe(0);
  return CaptureAnalysisSchema.parse(JSON.parse(analysed.stdout));
}

/** The capture's observations: its connections' round trips, and each copy of the file against the model. */
function observationsOf(label: string, analysis: CaptureAnalysis): Observation[] {
  // The round trip of the connection the file went over (Pipefill's copy-test opens others beside it).
  const carrying = analysis.connections.find((connection) => connection.copies.some((copy) => copy.bytes === FILE_BYTES));
  const rtt = carrying?.handshakeRttMs ?? Number.NaN;
  const observations: Observation[] = [
    {
      cell: `${label}: round trip`,
      measured: rtt,
      model: LINK.rttMs,
      unit: 'ms',
      bound: "within 5% of the link's",
      holds: withinRelative(rtt, LINK.rttMs, 0.05),
    },
  ];
  const copies = analysis.connections.flatMap((connection) => connection.copies.filter((copy) => copy.bytes === FILE_BYTES));
  for (const op of ['write', 'read'] as const) {
    const copy = copies.find((each) => each.op === op);
    const measured = copy ? copy.lastSeconds - copy.firstSeconds : Number.NaN;
    const model = copy?.model?.expectedSeconds ?? Number.NaN;
    observations.push({
      cell: `${label}: ${op}`,
      measured,
      model,
      unit: 's',
      bound: 'within 15% of the model',
      holds: withinRelative(measured, model, 0.15, 'measured'),
    });
  }
  return observations;
}

describe.skipIf(!canRunLab)("pipefill analyze on captures of real clients' copies across the lab's link", () => {
  const dir = mkdtempSync(join(tmpdir(), 'pipefill-analyze-lab-'));
  writeFileSync(join(dir, 'source.bin'), randomBytes(FILE_BYTES));
  afterAll(async () => {
    await labDown();
    if (!process.env['PIPEFILL_KEEP_CAPTURES']) rmSync(dir, { recursive: true, force: true });
  });

  it.each(SERVERS)(
    '50 Mb/s, 40 ms, $name: each client seen as it copied, its round trip within 5%, its copies within 15% of the model',
    async (server) => {
      expect(existsSync(cli), 'dist/ must be built (npm run test:lab builds it first)').toBe(true);
      const verdicts = await holdBounds(`capture analysis, ${server.name}`, async (only) => {
        const state = await labUp(LINK, Object.keys(server.globals).length > 0 ? { sambaGlobals: server.globals } : {});
        try {
          const observations: Observation[] = [];
          for (const copy of COPIES) {
            const label = `${copy.client} ${copy.protection}`;
            if (only && ![...only].some((cell) => cell.startsWith(`${label}:`))) continue;
            observations.push(...observationsOf(label, await capturedCopy(state, copy, dir)));
          }
          return observations;
        } finally {
          await labDown(state.id);
        }
      });
      expect(failures(verdicts)).toEqual([]);
    },
    1_800_000,
  );
});
