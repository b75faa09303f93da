// The what-if planner's messages: a link (a preset or a rate and RTT) in,
// every client generation's predicted times out.

import { z } from 'zod';
import { CLIENT_PROFILE_IDS, CLIENT_PROFILES } from '../model/client-profiles.js';
import { PipefillInputError } from '../model/errors.js';
import { LIMIT_LAYERS } from '../model/in-flight.js';
import type { Link } from '../model/link.js';
import { bdpBytes, bufferBytesOf } from '../model/link.js';
import type { ProtectionRequest } from '../model/negotiation.js';
import { PROTECTION_REQUESTS } from '../model/negotiation.js';
import { PLANNER_WORKLOADS, planLink } from '../model/plan.js';
import { MAX_CHANNELS } from '../model/predict.js';
import { DEFAULT_PRESET_ID, findPreset, LINK_PRESETS } from '../model/presets.js';
import { SERVER_PROFILE_IDS, SERVER_PROFILES } from '../model/server-profiles.js';
import { LinkFieldsSchema, linkFromFields, namesWholeLink } from './link-fields.js';

/** A planner with no server named plans against a current Windows file server. */
export const DEFAULT_PLAN_SERVER = 'win2012plus';

export const PlanInputSchema = z
  .object({
    preset: z.string().optional(),
    ...LinkFieldsSchema.shape,
    server: z.enum(SERVER_PROFILE_IDS).optional(),
    security: z.enum(PROTECTION_REQUESTS as [ProtectionRequest, ...ProtectionRequest[]]).optional(),
    channels: z.number().int().min(1).max(MAX_CHANNELS).optional(),
  })
  .strict();
export type PlanInput = z.infer<typeof PlanInputSchema>;

export const PlanResultSchema = z.object({
  link: z.object({
    preset: z.string().optional(),
    label: z.string(),
    bandwidthBitsPerSecond: z.number(),
    rttMs: z.number(),
    lossRate: z.number(),
    bdpBytes: z.number(),
    bufferBytes: z.number(),
    /** The path MTU planned with; absent: Ethernet's 1500. */
    mtuBytes: z.number().int().optional(),
  }),
  server: z.enum(SERVER_PROFILE_IDS),
  security: z.enum(PROTECTION_REQUESTS as [ProtectionRequest, ...ProtectionRequest[]]),
  channels: z.number(),
  /** Clients that cannot take part with this server and session, and why. */
  refused: z.array(z.object({ client: z.enum(CLIENT_PROFILE_IDS), reason: z.string() })),
  cells: z.array(
    z.object({
      client: z.enum(CLIENT_PROFILE_IDS),
      clientLabel: z.string(),
      workload: z.string(),
      op: z.enum(['read', 'write']),
      seconds: z.number(),
      throughputMbps: z.number(),
      limitedBy: z.enum(LIMIT_LAYERS),
      explanation: z.string(),
      /** What protected the data, as the pair negotiated it: `none`, or the algorithm. */
      protection: z.string(),
    }),
  ),
});
export type PlanResult = z.infer<typeof PlanResultSchema>;

/** A preset, optionally with its rate, RTT or loss changed; or a rate and RTT given outright. */
function resolvePlanLink(input: PlanInput): { link: Link; label: string; preset?: string } {
  const named = input.preset ?? (input.bandwidth === undefined && input.rtt === undefined ? DEFAULT_PRESET_ID : undefined);
  const preset = named === undefined ? undefined : findPreset(named);
  if (named !== undefined && !preset) {
    throw new PipefillInputError(`Unknown link preset ${JSON.stringify(named)}.`, `Valid presets: ${LINK_PRESETS.map((p) => p.id).join(', ')}.`);
  }
  if (!preset && !namesWholeLink(input)) {
    throw new PipefillInputError(
      'A plan needs a link: a preset, or both a bandwidth and an RTT.',
      'For example --preset europe-continental, or --bandwidth 20mbit --rtt 80ms.',
    );
  }
  const sized: Link = linkFromFields(input, { bandwidthBitsPerSecond: preset?.link.bandwidthBitsPerSecond ?? 0, rttMs: preset?.link.rttMs ?? 0, lossRate: 0 });
  const changed = input.bandwidth !== undefined || input.rtt !== undefined || input.loss !== undefined || input.buffer !== undefined || input.mtu !== undefined;
  const label = preset ? `${preset.label}${changed ? ', adjusted' : ''}` : 'Custom link';
  return preset ? { link: sized, label, preset: preset.id } : { link: sized, label };
}

export function planFromInput(input: PlanInput): PlanResult {
  const { link, label, preset } = resolvePlanLink(input);
  const server = input.server ?? DEFAULT_PLAN_SERVER;
  const security = input.security ?? 'auto';
  const channels = input.channels ?? 1;
  const planned = planLink(link, server, CLIENT_PROFILE_IDS, PLANNER_WORKLOADS, { security, channels });
  const cells = planned.cells.map((cell) => ({
    client: cell.client,
    clientLabel: CLIENT_PROFILES[cell.client].label,
    workload: cell.workload,
    op: cell.op,
    seconds: cell.prediction.seconds,
    throughputMbps: cell.prediction.throughputBitsPerSecond / 1e6,
    limitedBy: cell.prediction.limitedBy,
    explanation: cell.prediction.explanation,
    protection: cell.prediction.session.protection.kind === 'none' ? 'none' : cell.prediction.session.protection.algorithm,
  }));
  return {
    link: {
      ...(preset === undefined ? {} : { preset }),
      label,
      bandwidthBitsPerSecond: link.bandwidthBitsPerSecond,
      rttMs: link.rttMs,
      lossRate: link.lossRate ?? 0,
      bdpBytes: bdpBytes(link),
      bufferBytes: bufferBytesOf(link),
      ...(link.mtuBytes === undefined ? {} : { mtuBytes: link.mtuBytes }),
    },
    server,
    security,
    channels,
    refused: planned.refused,
    cells,
  };
}

export const CatalogueSchema = z.object({
  clients: z.array(z.object({ id: z.enum(CLIENT_PROFILE_IDS), label: z.string(), protocol: z.enum(['smb1', 'smb2']), dialect: z.string() })),
  servers: z.array(z.object({ id: z.enum(SERVER_PROFILE_IDS), label: z.string() })),
  /** Each preset's bottleneck buffer: its own where it has one, else the model's default of one BDP. */
  presets: z.array(
    z.object({ id: z.string(), label: z.string(), bandwidthBitsPerSecond: z.number(), rttMs: z.number(), bufferBytes: z.number(), source: z.string() }),
  ),
});
export type Catalogue = z.infer<typeof CatalogueSchema>;

export function catalogue(): Catalogue {
  return {
    clients: CLIENT_PROFILE_IDS.map((id) => {
      const { label, protocol, dialect } = CLIENT_PROFILES[id];
      return { id, label, protocol, dialect };
    }),
    servers: SERVER_PROFILE_IDS.map((id) => ({ id, label: SERVER_PROFILES[id].label })),
    presets: LINK_PRESETS.map((p) => ({
      id: p.id,
      label: p.label,
      bandwidthBitsPerSecond: p.link.bandwidthBitsPerSecond,
      rttMs: p.link.rttMs,
      bufferBytes: bufferBytesOf(p.link),
      source: p.source,
    })),
  };
}
