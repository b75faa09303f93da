// `capacity` as the contract offers it: probe the path (the model needs its
// rate and round trip), run the steps, and report them beside the model.

import type { CallOptions } from '../contract/api.js';
import type { CapacityParsedInput, CapacityResult } from '../contract/capacity.js';
import { CLIENT_PROFILES } from '../model/client-profiles.js';
import { asDrivenByPipefill } from '../model/diagnosis.js';
import { parseHostPort } from '../model/share-path.js';
import { shareTargetOf } from '../contract/share-login.js';
import { probedLineOf, tunnelMtuOf } from '../contract/report.js';
import { SERVER_PROFILES } from '../model/server-profiles.js';
import { IPERF_DEFAULT_PORT } from '../probe/bandwidth.js';
import { probePath } from '../probe/probe-path.js';
import { credentialsFrom } from '../smb/session.js';
import { localEngineStack } from '../apply/engine-stack.js';
import { assembleCapacity } from './capacity-result.js';
import type { CapacityProgress } from './run-capacity.js';
import { measureCapacity } from './run-capacity.js';

/** iperf3 streams for the line's rate. */
const PROBE_STREAMS = 8;

/**
 * How far a capacity run is (pure): each step of people a share (joining,
 * warming up, then measuring from its middle), the clean-up the last one;
 * the probe before them counts as nothing, "done" is 1.
 */
export function capacityFraction(phase: CapacityProgress['phase'], step: number, steps: number): number {
  if (!(steps > 0)) return 0;
  const units = steps + 1;
  const at = (unit: number, within: number) => Math.min(1, Math.max(0, (unit + within) / units));
  switch (phase) {
    case 'connect':
    case 'idle':
      return 0;
    case 'join':
      return at(step - 1, 0);
    case 'warm-up':
      return at(step - 1, 0.2);
    case 'measure':
      return at(step - 1, 0.5);
    case 'clean-up':
      return at(steps, 0);
  }
}

export async function runCapacity(input: CapacityParsedInput, options: CallOptions = {}): Promise<CapacityResult> {
  const share = shareTargetOf(input);
  const credentials = credentialsFrom(input);
  const { signal } = options;
  const startedAt = new Date().toISOString();
  const progress = (step: string, fraction: number, live?: { mbps: number }) =>
    options.onProgress?.({ step, bytes: 0, totalBytes: 0, fraction, ...(live ? { live: { tMs: 0, mbps: live.mbps, opsPerSecond: 0 } } : {}) });
  progress('probe', 0);
  // A short probe: the steps are the long part of this run. The model shares the line among the people
  // itself (with the queue's effect on loss-based senders), so the probe measures the line with several
  // flows: one CUBIC flow read 39.9 Mb/s of a 52 Mb/s lab link behind a queue of a quarter of its BDP.
  const probe = await probePath(share, credentials, {
    ...(input.iperf === undefined
      ? { seconds: 2 }
      : { iperf: parseHostPort(input.iperf, IPERF_DEFAULT_PORT), seconds: 3, estimate: 'steady' as const, streams: PROBE_STREAMS }),
    ...(signal ? { signal } : {}),
  });
  const link = {
    // The line, not the payload the probe moved (probedLineOf), and the tunnel's packets where the probe found one.
    bandwidthBitsPerSecond: probedLineOf(probe),
    ...tunnelMtuOf(probe),
    rttMs: probe.rtt.medianMs,
    ...(input.bufferBytes === undefined ? {} : { bufferBytes: input.bufferBytes }),
  };
  const steps = input.clients.length;
  let reached = 0;
  const measured = await measureCapacity(
    {
      share,
      credentials,
      profile: input.profile,
      op: input.op,
      steps: input.clients,
      seconds: input.seconds,
      warmupSeconds: input.warmupSeconds,
      fileBytes: input.fileBytes,
      link,
    },
    {
      ...(signal ? { signal } : {}),
      onProgress: (event) => {
        // Never back: the clean-up came after the last step's measurement as step N's start, and the bar fell from 87% to 75%.
        reached = Math.max(reached, capacityFraction(event.phase, event.step, steps));
        const fraction = reached;
        progress(
          `${event.phase}${event.users > 0 ? ` (${event.users} ${event.users === 1 ? 'person' : 'people'})` : ''}`,
          fraction,
          event.aggregateMbps === undefined ? undefined : { mbps: event.aggregateMbps },
        );
      },
    },
  );
  progress('done', 1);
  return assembleCapacity(measured, {
    share: input.share.text,
    profile: input.profile,
    server: input.server,
    op: input.op,
    fileBytes: input.fileBytes,
    seconds: input.seconds,
    warmupSeconds: input.warmupSeconds,
    startedAt,
    kneeShare: input.kneeShare,
    steps: input.clients,
    ...(input.target ? { target: input.target } : {}),
    model: {
      link,
      method: probe.bandwidth.method,
      client: asDrivenByPipefill(CLIENT_PROFILES[input.profile], localEngineStack()),
      serverProfile: SERVER_PROFILES[input.server],
    },
  });
}
