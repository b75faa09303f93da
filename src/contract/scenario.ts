// A scenario as people and files write it ("155mbit", "32ms"), and the
// prediction as every front end receives it.

import { z } from 'zod';
import { CLIENT_PROFILE_IDS } from '../model/client-profiles.js';
import { LIMIT_LAYERS } from '../model/in-flight.js';
import type { Prediction, Scenario } from '../model/predict.js';
import { predict } from '../model/predict.js';
import { SERVER_PROFILE_IDS } from '../model/server-profiles.js';
import { parseLossRate, parseRate, parseTimeMs } from '../model/units.js';
import { parseWorkload } from '../model/workloads.js';

const withUnit = (example: string) =>
  z.string({ error: `expected a string with a unit, e.g. "${example}"` }).min(1, { error: `expected a value with a unit, e.g. "${example}"` });

export const ScenarioInputSchema = z
  .object({
    client: z.enum(CLIENT_PROFILE_IDS),
    server: z.enum(SERVER_PROFILE_IDS),
    op: z.enum(['read', 'write']),
    workload: z.string().min(1),
    bandwidth: withUnit('155mbit'),
    rtt: withUnit('32ms'),
    loss: z.string().optional(),
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
});
export type PredictionResult = z.infer<typeof PredictionResultSchema>;

/** Reads the units and checks the workload; every error names what was expected. */
export function toScenario(input: ScenarioInput): Scenario {
  parseWorkload(input.workload);
  const link = {
    bandwidthBitsPerSecond: parseRate(input.bandwidth),
    rttMs: parseTimeMs(input.rtt),
    ...(input.loss === undefined ? {} : { lossRate: parseLossRate(input.loss) }),
  };
  return { client: input.client, server: input.server, op: input.op, workload: input.workload, link };
}

export function toPredictionResult(input: ScenarioInput, prediction: Prediction): PredictionResult {
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
  };
}

export function predictScenario(input: ScenarioInput): PredictionResult {
  return toPredictionResult(input, predict(toScenario(input)));
}
