// Several files at once (robocopy /MT:n): n lanes, each copying its share of
// the files with the client's own pipeline and metadata round trips. Round
// trips of different lanes overlap; the bytes still share one link, and on
// SMB 2 and later one session's credits (robocopy's threads share the
// client's one connection to the server: MS-SMB2 3.2.4.1.5 charges every
// request to the connection's credit balance). So the copy takes as long as
// its slowest lane, each holding its share of the credits, and never less
// than all the bytes at line rate.

import type { ClientProfile, Op } from './client-profiles.js';
import type { Session } from './in-flight.js';
import { SINGLE_UNPROTECTED } from './in-flight.js';
import type { Link } from './link.js';
import { payloadEfficiency } from './link.js';
import { predictTransfer } from './predict.js';
import type { ServerProfile } from './server-profiles.js';
import type { Workload } from './workloads.js';

export function parallelSeconds(
  client: ClientProfile,
  server: ServerProfile,
  op: Op,
  workload: Workload,
  link: Link,
  lanes: number,
  session: Session = SINGLE_UNPROTECTED,
): number {
  if (!(Number.isInteger(lanes) && lanes >= 1)) throw new RangeError(`lanes must be a whole number >= 1, not ${lanes}`);
  if (lanes === 1 || workload.files.length === 1) return predictTransfer(client, server, op, workload, link, session).seconds;
  // Files dealt round-robin; each lane lists the directories it writes into or reads from.
  const laneFiles = Array.from({ length: Math.min(lanes, workload.files.length) }, (_, lane) =>
    workload.files.filter((_file, index) => index % lanes === lane),
  );
  // Each lane gets its share of the session's credits (at least one): 16 credits are 16 for all the lanes together.
  const laneServer: ServerProfile =
    client.protocol === 'smb2'
      ? { ...server, smb2: { ...server.smb2, creditsMax: Math.max(1, Math.floor(server.smb2.creditsMax / laneFiles.length)) } }
      : server;
  const laneSeconds = laneFiles.map((files) => {
    const directories = [
      ...new Set(files.map((file) => (file.path.includes('/') ? file.path.slice(0, file.path.lastIndexOf('/')) : '')).filter((dir) => dir !== '')),
    ];
    const lane: Workload = { spec: workload.spec, kind: workload.kind, directories, files, totalBytes: files.reduce((sum, file) => sum + file.bytes, 0) };
    return predictTransfer(client, laneServer, op, lane, link, session).seconds;
  });
  const wireSeconds = (workload.totalBytes * 8) / (link.bandwidthBitsPerSecond * payloadEfficiency(client.tcp.timestamps));
  return Math.max(wireSeconds, ...laneSeconds);
}
