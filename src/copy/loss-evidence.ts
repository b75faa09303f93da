// A write's retransmissions split between its own queue and the path
// (src/model/loss-split.ts), added to the kernel's evidence for the copy.

import type { CopyTestResult } from '../contract/copy-test.js';
import type { LossSample, SplitPath } from '../model/loss-split.js';
import { notAnOverflow, splitRetransmissions } from '../model/loss-split.js';
import type { TcpEvidence, TcpInfoSample } from '../platform/tcp-info.js';
import { sampleTcpInfo } from '../platform/tcp-info.js';
import type { ConnectionWatch } from '../platform/tcp-watch.js';
import { KERNEL_WATCH_INTERVAL_MS, SS_WATCH_INTERVAL_MS, watchConnection } from '../platform/tcp-watch.js';
import type { SmbConnection } from '../smb/connection.js';

/** A sample (the kernel's, or `ss`'s) as the split takes it; undefined where it lacks a round trip or a byte count. */
export const lossSampleOf = (
  sample:
    | (Partial<Pick<TcpInfoSample, 'rttMs' | 'minRttMs' | 'bytesSent' | 'bytesRetrans'>> & Pick<LossSample, 'inFlightBytes' | 'deliveryBytesPerSecond'>)
    | undefined,
): LossSample | undefined =>
  sample?.rttMs === undefined || sample.bytesSent === undefined
    ? undefined
    : {
        rttMs: sample.rttMs,
        bytesSent: sample.bytesSent,
        // `ss` leaves bytes_retrans out until the connection first sends a byte again.
        bytesRetrans: sample.bytesRetrans ?? 0,
        ...(sample.minRttMs === undefined ? {} : { minRttMs: sample.minRttMs }),
        ...(sample.inFlightBytes === undefined || sample.deliveryBytesPerSecond === undefined
          ? {}
          : { inFlightBytes: sample.inFlightBytes, deliveryBytesPerSecond: sample.deliveryBytesPerSecond }),
      };

/**
 * Watches a copy's connection: through the kernel directly where the sender
 * addon can ask it (every 10 ms), else through `ss` (every 100 ms; a short
 * copy's losses then fall between fewer samples). Off Linux neither can
 * say anything, so no watch runs beside the copy, and it has no split.
 */
export function watchLosses(connection: Pick<SmbConnection, 'kernelSample' | 'endpoints'>): ConnectionWatch<LossSample> | undefined {
  if (connection.kernelSample()?.bytesSent !== undefined)
    return watchConnection(() => Promise.resolve(lossSampleOf(connection.kernelSample())), KERNEL_WATCH_INTERVAL_MS);
  if (process.platform !== 'linux') return undefined;
  return watchConnection(async () => lossSampleOf(await sampleTcpInfo(connection.endpoints)), SS_WATCH_INTERVAL_MS);
}

/**
 * `tcp` with the split of the copy's retransmissions, as shares of the bytes
 * it sent, where the samples give one; else `tcp` as it was. The path's share
 * only where its rate could be read (LossSplit.pathRateSeen).
 */
export function withLossSplit(tcp: TcpEvidence | undefined, samples: readonly LossSample[] | undefined, path: SplitPath = {}): TcpEvidence | undefined {
  const first = samples?.[0];
  const last = samples?.at(-1);
  const sent = first && last ? last.bytesSent - first.bytesSent : 0;
  const split = samples ? splitRetransmissions(samples, path) : undefined;
  if (!tcp || !split || !(sent > 0)) return tcp;
  const atLoss = split.queueAtLossMs > 0 ? { queueAtLossMs: split.queueAtLossMs } : {};
  // Too few losses to say whose: the queue the copy stood, what it lost, and no shares.
  if (!split.decided) {
    const lost = (last?.bytesRetrans ?? 0) - (first?.bytesRetrans ?? 0);
    return { ...tcp, peakQueueMs: split.peakQueueMs, lossUnsplitFraction: Math.min(1, Math.max(0, lost / sent)), ...atLoss };
  }
  return {
    ...tcp,
    lossAtQueueFraction: Math.min(1, split.queueBytes / sent),
    // Only where the copy sent long enough with no queue standing to read the path's rate: else nothing is known of it.
    ...(split.pathRateSeen ? { lossOnPathFraction: Math.min(1, split.pathBytes / sent) } : {}),
    peakQueueMs: split.peakQueueMs,
    ...atLoss,
  };
}

/**
 * The run's copies with each write's split read against the others': losses
 * put to a write's own queue, or too few to say whose, that came with a queue
 * well below the deepest any write of the run stood are the path's
 * (notAnOverflow). What it lost with no queue behind it stays the path's.
 */
export function withRunLossReading<T extends Pick<CopyTestResult, 'op' | 'tcp'>>(copies: readonly T[]): T[] {
  const deepestQueueMs = Math.max(0, ...copies.map((copy) => (copy.op === 'write' ? (copy.tcp?.peakQueueMs ?? 0) : 0)));
  return copies.map((copy) => {
    const tcp = copy.tcp;
    if (copy.op !== 'write' || tcp?.queueAtLossMs === undefined || !notAnOverflow(tcp.queueAtLossMs, deepestQueueMs)) return copy;
    const { lossUnsplitFraction, ...rest } = tcp;
    const lossOnPathFraction = Math.min(1, (tcp.lossOnPathFraction ?? 0) + (tcp.lossAtQueueFraction ?? 0) + (lossUnsplitFraction ?? 0));
    const revised: Pick<CopyTestResult, 'tcp'> = { tcp: { ...rest, lossAtQueueFraction: 0, lossOnPathFraction } };
    return { ...copy, ...revised };
  });
}
