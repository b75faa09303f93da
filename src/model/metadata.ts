// Per-file and per-directory metadata exchanges. A directory copy is mostly
// these: each is a full round trip that moves almost no data, so they are
// modelled as sequences of round trips, never as seconds. The SMB engine
// replays the same sequences against a real share, so the model and the test
// copy count the same round trips.

export type MetadataOp = 'create' | 'create-directory' | 'query-info' | 'query-directory' | 'set-info' | 'flush' | 'close';

/** One round trip: a single request, or several compounded into one (SMB2). */
export type RoundTrip = readonly MetadataOp[];

export interface MetadataSequences {
  /** Around reading one file from the share (data reads sit between the create and the close). */
  readonly readPerFile: readonly RoundTrip[];
  /** Around writing one file to the share. */
  readonly writePerFile: readonly RoundTrip[];
  /** Listing a source directory on the share (reads) or making one there (writes). */
  readonly readPerDirectory: readonly RoundTrip[];
  readonly writePerDirectory: readonly RoundTrip[];
}

export function roundTripsPerFile(sequences: MetadataSequences, op: 'read' | 'write'): number {
  return (op === 'read' ? sequences.readPerFile : sequences.writePerFile).length;
}

export function roundTripsPerDirectory(sequences: MetadataSequences, op: 'read' | 'write'): number {
  return (op === 'read' ? sequences.readPerDirectory : sequences.writePerDirectory).length;
}

/**
 * Round trips of a file's sequence before its data moves: the engine moves
 * the data just before the data handle's first flush or close
 * (src/copy/replay.ts), and every file sequence opens that handle before any
 * other is closed. A budgeted copy spends these whatever its slot.
 */
export function roundTripsBeforeData(sequences: MetadataSequences, op: 'read' | 'write'): number {
  const steps = op === 'read' ? sequences.readPerFile : sequences.writePerFile;
  const first = steps.findIndex((step) => step[0] === 'flush' || step[0] === 'close');
  return first < 0 ? steps.length : first;
}
