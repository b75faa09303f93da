// A workload no copy moved (a quick assessment's directory set), projected
// from the model: its time for the workload, scaled by how this path's copy
// of the same generation's file compared with the model's time for that file.
//
// Why the model and not the file copy's own rate and round trips: a quick
// run's file is small (1 MiB on a branch link), so its copy spends most of
// its time in the connection's first slow start and its opening round
// trips, and shows no rate a 5 MB file of the set would see on a connection
// already warm. Projecting the set from that rate and those round trips was
// 35-145% off the full copies on the WAN lab (2026-11-23). The model carries
// the ramp, the pipeline and the per-file sequences; the file copy says how
// far this path, this server and this machine stray from it. With the full
// runs' file copies as the scale, the set's reads and writes of all five
// generations came within 15% of their full copies in 10 of 10 on 52 Mb/s /
// 75 ms, 9 of 10 on 80 / 45 and 8 of 10 on 155 / 32 (XP's 1 MiB read runs
// ~22% slower than the model on all three, its set's read does not).

import { PipefillInputError } from './errors.js';

export interface FileCopyAgainstModel {
  /** The file copy's reported time: measured whole, or projected from a budgeted copy. */
  readonly seconds: number;
  /** The model's time for the same file, generation, server and link. */
  readonly modelSeconds: number;
  /** A projected file copy's range at its rate's spread; absent (or null high) when it has none. */
  readonly lowSeconds?: number;
  readonly highSeconds?: number | null;
}

export interface ScaledProjection {
  readonly seconds: number;
  /** The file copy's measured-over-model ratio that scaled the model's time. */
  readonly scale: number;
  /** The file copy's own range carried over; null when it has none to carry. */
  readonly lowSeconds: number;
  readonly highSeconds: number | null;
}

const positive = (value: number) => Number.isFinite(value) && value > 0;

/** The model's time for a workload (`modelSeconds`), scaled by the same generation's file copy against the model. */
export function modelScaledProjection(modelSeconds: number, fileCopy: FileCopyAgainstModel): ScaledProjection {
  if (!positive(modelSeconds) || !positive(fileCopy.seconds) || !positive(fileCopy.modelSeconds)) {
    throw new PipefillInputError(
      `A projection needs positive times (model ${modelSeconds} s, file copy ${fileCopy.seconds} s against ${fileCopy.modelSeconds} s).`,
      'Run the file copy of the same generation first.',
    );
  }
  const scale = fileCopy.seconds / fileCopy.modelSeconds;
  const seconds = modelSeconds * scale;
  const low = fileCopy.lowSeconds !== undefined && positive(fileCopy.lowSeconds) ? (modelSeconds * fileCopy.lowSeconds) / fileCopy.modelSeconds : seconds;
  const high =
    fileCopy.highSeconds !== undefined && fileCopy.highSeconds !== null && positive(fileCopy.highSeconds)
      ? (modelSeconds * fileCopy.highSeconds) / fileCopy.modelSeconds
      : null;
  return { seconds, scale, lowSeconds: Math.min(low, seconds), highSeconds: high === null ? null : Math.max(high, seconds) };
}
