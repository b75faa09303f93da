// Several files at once (robocopy /MT:n): the folders walked first, one at a
// time, then the files in n lanes, each copying its share with the client's
// own pipeline and metadata round trips. Robocopy's main thread makes the
// destination's folders as it walks the source and hands files to its
// threads (Microsoft Learn: robocopy /MT); Pipefill's copy as robocopy makes
// it does the same (src/copy/move-workload.ts), so a lane never meets a
// folder another lane is making. Round trips of different lanes overlap; the
// bytes still share one link, and on SMB 2 and later one session's credits
// (robocopy's threads share the client's one connection to the server:
// MS-SMB2 3.2.4.1.5 charges every request to the connection's credit
// balance). So the copy takes its folders' round trips, then as long as its
// slowest lane, each holding its share of the credits, and never less than
// all the bytes at line rate.

import type { ClientProfile, Op } from './client-profiles.js';
import type { Session } from './in-flight.js';
import { SINGLE_UNPROTECTED } from './in-flight.js';
import type { Link } from './link.js';
import { payloadEfficiency } from './link.js';
import { roundTripsPerDirectory } from './metadata.js';
import type { Prediction } from './predict.js';
import { predictTransfer } from './predict.js';
import type { ServerProfile } from './server-profiles.js';
import type { Workload } from './workloads.js';
import { onThisMachine } from './layer-naming.js';
import { exchangeSeconds } from './host-costs.js';

/** Most files a copy tool moves at once: robocopy /MT takes 1 to 128 (Microsoft Learn: robocopy). */
export const MAX_LANES = 128;

/**
 * A copy of `workload` in `lanes` lanes, as the model's Prediction: its
 * time, and the layer of the lane that finishes last (the line's, where the
 * bytes at line rate take longer than every lane).
 */
export function predictParallel(
  client: ClientProfile,
  server: ServerProfile,
  op: Op,
  workload: Workload,
  link: Link,
  lanes: number,
  session: Session = SINGLE_UNPROTECTED,
): Prediction {
  if (!(Number.isInteger(lanes) && lanes >= 1 && lanes <= MAX_LANES)) throw new RangeError(`lanes must be a whole number from 1 to ${MAX_LANES}, not ${lanes}`);
  if (lanes === 1 || workload.files.length === 1) return predictTransfer(client, server, op, workload, link, session);
  // Files dealt round-robin, in the order the walk finds them.
  const laneFiles = Array.from({ length: Math.min(lanes, workload.files.length) }, (_, lane) =>
    workload.files.filter((_file, index) => index % lanes === lane),
  );
  // Each lane holds its share of the connection's credits and TCP windows, both ends': the lanes' requests and
  // replies cross the one connection. 16 credits are 16 for all the lanes together, and a request is still sized by
  // all 16, as the client (and Pipefill's engine) sizes it by what the connection holds. Splitting the grant into
  // smaller requests per lane promised robocopy /MT:4 the demo's folder written in 98-111 s; the lab measured
  // 126-127 s. A server window that holds writes to 80 KiB holds eight lanes to 80 KiB together (robocopy /MT:8 was
  // promised the folder in 99 s where that window allows 1 GB no faster than 500 s).
  const laneSession: Session = { ...session, connectionShare: (session.connectionShare ?? 1) / laneFiles.length };
  // The walk: a read lists the source's root and its folders, a write makes the destination's folders, before any file.
  const perDirectory =
    roundTripsPerDirectory(client.metadata, op) * (link.rttMs / 1000 + exchangeSeconds(link.hosts, session.protection, client.crypto, server.crypto));
  const walkSeconds = (workload.directories.length + (op === 'read' ? 1 : 0)) * perDirectory;
  const lanePredictions = laneFiles.map((files) => {
    const lane: Workload = { spec: workload.spec, kind: workload.kind, directories: [], files, totalBytes: files.reduce((sum, file) => sum + file.bytes, 0) };
    const prediction = predictTransfer(client, server, op, lane, link, laneSession);
    // predictTransfer lists a read's root for each lane: the walk listed it once already.
    return { prediction, seconds: prediction.seconds - (op === 'read' ? perDirectory : 0) };
  });
  const slowest = lanePredictions.reduce((worst, lane) => (lane.seconds > worst.seconds ? lane : worst));
  const wireSeconds = (workload.totalBytes * 8) / (link.bandwidthBitsPerSecond * payloadEfficiency(client.tcp.timestamps, link.mtuBytes));
  const seconds = walkSeconds + Math.max(wireSeconds, slowest.seconds);
  return {
    ...slowest.prediction,
    seconds,
    throughputBitsPerSecond: (workload.totalBytes * 8) / seconds,
    // Lanes that together fill the line are held by it (on a share on this machine, the hosts' pace is that "line").
    limitedBy: wireSeconds >= slowest.seconds ? (onThisMachine(link) ? 'hosts' : 'bandwidth') : slowest.prediction.limitedBy,
    files: workload.files.length,
    totalBytes: workload.totalBytes,
  };
}

export function parallelSeconds(
  client: ClientProfile,
  server: ServerProfile,
  op: Op,
  workload: Workload,
  link: Link,
  lanes: number,
  session: Session = SINGLE_UNPROTECTED,
): number {
  return predictParallel(client, server, op, workload, link, lanes, session).seconds;
}

/** A copy as its session makes it: in the session's lanes (robocopy /MT:n), one file at a time where it has none. */
export function predictCopy(
  client: ClientProfile,
  server: ServerProfile,
  op: Op,
  workload: Workload,
  link: Link,
  session: Session = SINGLE_UNPROTECTED,
): Prediction {
  return predictParallel(client, server, op, workload, link, session.lanes ?? 1, session);
}
