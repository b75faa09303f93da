// pipefill probe: RTT and bandwidth of the path to a share.

import type { PipefillApi } from '../../contract/api.js';
import { loginText } from '../../presentation/login-text.js';
import { protectionText } from '../../presentation/report-views.js';
import type { ProbeInput, ProbeResult } from '../../contract/probe.js';
import { PipefillInputError } from '../../model/errors.js';
import { parseHostPort } from '../../model/share-path.js';
import { IPERF_DEFAULT_PORT } from '../../probe/bandwidth.js';
import { formatLossRate, formatRate } from '../../model/units.js';
import { optional, parseOptions } from '../args.js';
import { LOGIN_HELP, passwordIfTicketRefused, SECURITY_USAGE, SHARE_LOGIN_OPTIONS, shareLoginOptions, withPassword } from '../share-login.js';
import type { Output } from '../output.js';
import { printJson } from '../output.js';
import { interruptSignal } from '../progress.js';

export const PROBE_USAGE = `pipefill probe --share //HOST[:PORT]/SHARE[/FOLDER] --user U [--password-env VAR] [--domain D] ${SECURITY_USAGE} [--iperf HOST[:PORT]] [--seconds N] [--json]
  RTT (TCP handshakes to the SMB port, SMB2 ECHO) and bandwidth (iperf3 when a server is given
  and answers, else Pipefill's SMB read pipeline, in a scratch folder it removes again).
${LOGIN_HELP}`;

const OPTIONS = {
  ...SHARE_LOGIN_OPTIONS,
  iperf: { type: 'string' },
  seconds: { type: 'string' },
  json: { type: 'boolean' },
} as const;

export function formatProbe(share: string, result: ProbeResult): string {
  const { rtt, bandwidth } = result;
  return [
    `Path to ${share}`,
    `  RTT         ${rtt.tcp.medianMs.toFixed(2)} ms median TCP handshake (min ${rtt.tcp.minMs.toFixed(2)}, p95 ${rtt.tcp.p95Ms.toFixed(2)}, jitter ${rtt.tcp.jitterMs.toFixed(2)}); SMB2 ECHO ${rtt.smbEcho.medianMs.toFixed(2)} ms`,
    ...(rtt.loaded
      ? [
          `  under load  ${rtt.loaded.medianMs.toFixed(2)} ms median SMB2 ECHO while the bandwidth test filled the link (p95 ${rtt.loaded.p95Ms.toFixed(2)}; ${Math.max(0, rtt.loaded.medianMs - rtt.medianMs).toFixed(2)} ms above the idle round trip)`,
        ]
      : []),
    ...(result.path?.mtuBytes !== undefined
      ? [`  path MTU    ${result.path.mtuBytes} bytes${result.path.mtuBytes < 1500 ? " (below Ethernet's 1500: a tunnel or PPPoE, less data a packet)" : ''}`]
      : []),
    ...(result.path?.congestion !== undefined
      ? [`  sending     ${result.path.congestion}, the congestion control this machine's TCP runs toward the share`]
      : []),
    `  bandwidth   ${formatRate(bandwidth.mbps * 1e6)} of data ${bandwidth.direction}, by ${bandwidth.method}${bandwidth.via ? ` (${bandwidth.via})` : ''}${bandwidth.retransmits === undefined ? '' : `, ${bandwidth.retransmits} retransmits (~${formatLossRate((bandwidth.lossPercent ?? 0) / 100)} loss)`}${bandwidth.congestion ? `, ${bandwidth.congestion}` : ''}`,
    ...(result.session ? [`  session     SMB ${result.session.dialect}, ${protectionText(result.session)}`] : []),
    ...(result.session?.login ? [`  logon       ${loginText(result.session.login)}`] : []),
    ...(bandwidth.fallbackReason ? [`  note        ${bandwidth.fallbackReason}`] : []),
  ].join('\n');
}

export async function probeCommand(argv: readonly string[], api: PipefillApi, output: Output): Promise<void> {
  const { values, positionals } = parseOptions(argv, OPTIONS, PROBE_USAGE);
  if (positionals.length > 0) throw new PipefillInputError(`Unexpected argument ${JSON.stringify(positionals[0])}.`, PROBE_USAGE);
  const login = shareLoginOptions(values);
  const seconds = optional(values, 'seconds');
  const iperf = optional(values, 'iperf');
  if (seconds !== undefined && !(Number(seconds) > 0 && Number(seconds) <= 60))
    throw new PipefillInputError(`--seconds ${seconds} is out of range.`, 'Give 1 to 60.');
  // A bad address fails here, before the password prompt.
  if (iperf !== undefined) parseHostPort(iperf, IPERF_DEFAULT_PORT);
  const input: ProbeInput = await withPassword(
    { ...login, ...(iperf === undefined ? {} : { iperf }), ...(seconds === undefined ? {} : { seconds: Number(seconds) }) },
    values,
  );
  const interrupt = interruptSignal();
  try {
    const result = await passwordIfTicketRefused(
      input,
      values,
      (login) => api.probe(login, { signal: interrupt.signal }),
      (line) => output.err(line),
    );
    if (values.json) printJson(output, result);
    else output.out(formatProbe(login.share, result));
  } finally {
    interrupt.dispose();
  }
}
