// What each client generation does on the wire, from the model's profiles:
// request size (within what the server negotiated), copy-engine depth and
// chunk, and whether it is an emulation.

import type { ClientProfile, CopyPipeline, Op } from '../model/client-profiles.js';
import { KIB, MIB } from '../model/client-profiles.js';
import type { FilePipeline } from '../model/in-flight.js';
import { BYTES_PER_CREDIT, filePipeline } from '../model/in-flight.js';
import type { Link } from '../model/link.js';
import type { Negotiated } from '../smb/session.js';
import type { PipelineGrowth } from './transfer.js';

/**
 * Pipefill's own pipeline keeps at most this much in flight: enough for a
 * 1 Gb/s path at 250 ms, and a bound on the memory a write holds (a 1 GiB
 * copy stays under 200 MB of RSS; bench:smb reports it).
 */
export const MAX_IN_FLIGHT_BYTES = 32 * MIB;

/** The largest request this profile sends to this server. */
export function requestLimit(profile: ClientProfile, negotiated: Negotiated, op: Op): number {
  const negotiatedMax = op === 'read' ? negotiated.maxReadSize : negotiated.maxWriteSize;
  const dialectMax = profile.largeMtu && negotiated.largeMtu ? negotiatedMax : Math.min(negotiatedMax, BYTES_PER_CREDIT);
  return Math.min(profile.maxRequestBytes[op], dialectMax);
}

/**
 * The pipeline for one file. Pipefill's own profile sizes itself to the path
 * when the path is known (2 x BDP, as the model assumes); when it is not, it
 * starts at its least depth and deepens as it runs (see `pipelineGrowth`).
 * The credit window holds it to the server's grant.
 */
export function pipelineFor(profile: ClientProfile, negotiated: Negotiated, op: Op, fileBytes: number, link?: Link): FilePipeline {
  const request = requestLimit(profile, negotiated, op);
  const pipeline = profile.pipeline[op];
  if (pipeline.kind === 'fill-bdp') {
    const budgetDepth = Math.max(1, Math.floor(MAX_IN_FLIGHT_BYTES / request));
    const least: CopyPipeline = { kind: 'table', rows: [{ upToFileBytes: Infinity, depth: pipeline.minDepth, chunkBytes: request }] };
    const sized = link ? filePipeline(pipeline, fileBytes, request, link) : filePipeline(least, fileBytes, request);
    return { ...sized, depth: Math.min(sized.depth, budgetDepth) };
  }
  return filePipeline(pipeline, fileBytes, request, link);
}

/**
 * How far a pipeline may deepen while it runs: only Pipefill's own, and only
 * when no probe measured the path. Filling the whole in-flight budget from
 * the start was the wrong guess on a short path (src/model/self-sizing.ts).
 */
export function pipelineGrowth(profile: ClientProfile, negotiated: Negotiated, op: Op, link?: Link): PipelineGrowth | undefined {
  const pipeline = profile.pipeline[op];
  if (pipeline.kind !== 'fill-bdp' || link) return undefined;
  return {
    maxDepth: Math.max(pipeline.minDepth, Math.min(pipeline.maxDepth, Math.floor(MAX_IN_FLIGHT_BYTES / requestLimit(profile, negotiated, op)))),
    bdpMultiple: pipeline.bdpMultiple,
  };
}

/** What the UI and report say about a profile that Pipefill imitates rather than speaks. */
export function emulationNote(profile: ClientProfile, negotiated: Negotiated): string | null {
  const pattern = (op: Op) => {
    const row = profile.pipeline[op];
    if (row.kind !== 'table' || row.rows.length !== 1) return undefined;
    const only = row.rows[0];
    if (!only || only.chunkBytes === 'file-size') return undefined;
    return only.depth === 1 ? `one ${only.chunkBytes / KIB} KiB ${op} at a time` : `${only.depth} x ${only.chunkBytes / KIB} KiB ${op}s in flight`;
  };
  const notes: string[] = [];
  if (profile.protocol === 'smb1') {
    notes.push(
      `SMB1 is not spoken: ${profile.label}'s I/O pattern (${[pattern('read'), pattern('write')].filter(Boolean).join(', ')}) and metadata round trips are emulated over SMB ${negotiated.dialect}.`,
    );
  } else if (profile.dialect !== negotiated.dialect && profile.dialect.startsWith('3')) {
    notes.push(
      `SMB ${profile.dialect} is not negotiated: ${profile.label}'s request sizes, pipeline and metadata round trips are driven over SMB ${negotiated.dialect}${negotiated.largeMtu ? ' with large MTU' : ''}.`,
    );
  }
  if (negotiated.movedUpFrom) {
    const why = negotiated.encryptionRequiredBy
      ? `it requires encryption (${negotiated.encryptionRequiredBy === 'person' ? 'as asked' : `the ${negotiated.encryptionRequiredBy}'s setting`}), which needs SMB 3`
      : 'it allows none of them';
    notes.push(
      `Moved up: ${profile.label} offers ${negotiated.movedUpFrom.map((dialect) => `SMB ${dialect}`).join(' and ')}, and the server refused them (${why}); this copy ran over SMB ${negotiated.dialect} with ${profile.label}'s I/O pattern.`,
    );
  }
  return notes.length > 0 ? notes.join(' ') : null;
}
