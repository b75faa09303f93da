// `capacity` as the contract offers it: probe the path (the model needs its
// rate and round trip), run the steps, and report them beside the model.

import type { CallOptions } from '../contract/api.js';
import type { CapacityParsedInput, CapacityResult } from '../contract/capacity.js';
import { CLIENT_PROFILES } from '../model/client-profiles.js';
import { asDrivenByPipefill } from '../model/diagnosis.js';
import { parseHostPort, shareTarget } from '../model/share-path.js';
import { SERVER_PROFILES } from '../model/server-profiles.js';
import { IPERF_DEFAULT_PORT } from '../probe/bandwidth.js';
import { probePath } from '../probe/probe-path.js';
import { credentialsFrom } from '../smb/session.js';
import { localEngineStack } from '../apply/engine-stack.js';
import { assembleCapacity } from './capacity-result.js';
import { measureCapacity } from './run-capacity.js';

/** iperf3 streams for the line's rate. */
const PROBE_STREAMS = 8;

export async function runCapacity(input: CapacityParsedInput, options: CallOptions = {}): Promise<CapacityResult> {
  const share = shareTarget(input);
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
    bandwidthBitsPerSecond: probe.bandwidth.mbps * 1e6,
    rttMs: probe.rtt.medianMs,
    ...(input.bufferBytes === undefined ? {} : { bufferBytes: input.bufferBytes }),
  };
  const steps = input.clients.length;
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
        const fraction = steps > 0 ? Math.min(1, (Math.max(0, event.step - 1) + (event.phase === 'measure' ? 0.5 : 0)) / steps) : 0;
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
    share: input.share,
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
