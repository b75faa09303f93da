// A scenario as people and files write it ("155mbit", "32ms"), and the
// prediction as every front end receives it.

import { z } from 'zod';
import { CLIENT_PROFILE_IDS } from '../model/client-profiles.js';
import { LIMIT_LAYERS } from '../model/in-flight.js';
import type { Link } from '../model/link.js';
import { bufferBytesOf } from '../model/link.js';
import type { ProtectionRequest } from '../model/negotiation.js';
import { PROTECTION_REQUESTS } from '../model/negotiation.js';
import type { Scenario, ScenarioPrediction } from '../model/predict.js';
import { MAX_CHANNELS, predict } from '../model/predict.js';
import { CIPHERS, DIALECTS, SIGNING_ALGORITHMS } from '../model/smb-security.js';
import { SERVER_PROFILE_IDS } from '../model/server-profiles.js';
import { LinkFieldsSchema, linkFromFields } from './link-fields.js';
import { parseWorkload } from '../model/workloads.js';

const withUnit = (example: string) =>
  z.string({ error: `expected a string with a unit, e.g. "${example}"` }).min(1, { error: `expected a value with a unit, e.g. "${example}"` });

export const ScenarioInputSchema = z
  .object({
    client: z.enum(CLIENT_PROFILE_IDS),
    server: z.enum(SERVER_PROFILE_IDS),
    op: z.enum(['read', 'write']),
    workload: z.string().min(1),
    ...LinkFieldsSchema.shape,
    bandwidth: withUnit('155mbit'),
    rtt: withUnit('32ms'),
    /** `auto` (what the pair negotiates), `none`, `signing`, `encryption` or an algorithm by name. */
    security: z.enum(PROTECTION_REQUESTS as [ProtectionRequest, ...ProtectionRequest[]]).optional(),
    /** TCP connections of the session (SMB 3 multichannel). */
    channels: z.number().int().min(1).max(MAX_CHANNELS).optional(),
  })
  .strict();
export type ScenarioInput = z.infer<typeof ScenarioInputSchema>;

export const LayerResultSchema = z.object({
  layer: z.enum(LIMIT_LAYERS),
  bytesInFlight: z.number(),
  throughputMbps: z.number(),
});

export const PredictionResultSchema = ScenarioInputSchema.extend({
  seconds: z.number(),
  throughputMbps: z.number(),
  bdpBytes: z.number(),
  limitedBy: z.enum(LIMIT_LAYERS),
  /** Layers that can bind on this path; a layer with no finite budget (an unbounded send buffer) is left out. */
  layers: z.array(LayerResultSchema),
  requestBytes: z.number(),
  pipeline: z.object({ depth: z.number(), chunkBytes: z.number() }),
  breakdown: z.object({
    dataSeconds: z.number(),
    metadataSeconds: z.number(),
    metadataRoundTrips: z.number(),
    slowStartSeconds: z.number(),
  }),
  explanation: z.string(),
  /** What the pair negotiated for the scenario, and what protected the data. */
  negotiated: z.object({
    dialect: z.enum(DIALECTS),
    protection: z.enum(['none', 'signing', 'encryption']),
    algorithm: z.enum([...SIGNING_ALGORITHMS, ...CIPHERS]).optional(),
    reason: z.string(),
  }),
  bufferBytes: z.number(),
});
export type PredictionResult = z.infer<typeof PredictionResultSchema>;

/** Reads the units and checks the workload; every error names what was expected. */
export function toScenario(input: ScenarioInput): Scenario {
  parseWorkload(input.workload);
  const link = linkFromFields(input, { bandwidthBitsPerSecond: 0, rttMs: 0 });
  return {
    client: input.client,
    server: input.server,
    op: input.op,
    workload: input.workload,
    link,
    ...(input.security === undefined ? {} : { security: input.security }),
    ...(input.channels === undefined ? {} : { channels: input.channels }),
  };
}

export function toPredictionResult(input: ScenarioInput, prediction: ScenarioPrediction, link: Link): PredictionResult {
  const protection = prediction.negotiated.protection;
  return {
    ...input,
    seconds: prediction.seconds,
    throughputMbps: prediction.throughputBitsPerSecond / 1e6,
    bdpBytes: prediction.bdpBytes,
    limitedBy: prediction.limitedBy,
    layers: prediction.layers
      .filter((layer) => Number.isFinite(layer.bytesInFlight))
      .map((layer) => ({ layer: layer.layer, bytesInFlight: layer.bytesInFlight, throughputMbps: (layer.bytesPerSecond * 8) / 1e6 })),
    requestBytes: prediction.requestBytes,
    pipeline: prediction.pipeline,
    breakdown: prediction.breakdown,
    explanation: prediction.explanation,
    negotiated: {
      dialect: prediction.negotiated.dialect,
      protection: protection.kind,
      ...(protection.kind === 'none' ? {} : { algorithm: protection.algorithm }),
      reason: prediction.negotiated.reason,
    },
    bufferBytes: bufferBytesOf(link),
  };
}

export function predictScenario(input: ScenarioInput): PredictionResult {
  const scenario = toScenario(input);
  return toPredictionResult(input, predict(scenario), scenario.link);
}
