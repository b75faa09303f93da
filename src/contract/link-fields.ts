// A link as a person writes it: its bandwidth, round trip, loss, the
// bottleneck's buffer and the path MTU, each with its unit ("155mbit", "32ms", "0.5%",
// "0.25bdp"). One schema for every input that takes a link (a scenario, the
// planner, a recommendation, the lab) and one parser to the model's Link.

import { z } from 'zod';
import type { Link } from '../model/link.js';
import { bdpBytes } from '../model/link.js';
import { parseBufferBytes, parseLossRate, parseRate, parseTimeMs } from '../model/units.js';
import { parseMtuBytes } from '../model/path-mtu.js';

export const LinkFieldsSchema = z.object({
  bandwidth: z.string().min(1).optional(),
  rtt: z.string().min(1).optional(),
  loss: z.string().optional(),
  /** The bottleneck's buffer: a size, a share of the BDP (`0.25bdp`) or a time at the line rate (`20ms`); absent, one BDP. */
  buffer: z.string().min(1).optional(),
  /** The path's largest packet: bytes (`1420`) or a tunnel (`wireguard`, `gre`, `pppoe`); absent, Ethernet's 1500. */
  mtu: z.string().min(1).max(40).optional(),
});
export type LinkFields = z.infer<typeof LinkFieldsSchema>;

/** What a link starts from where a field is not given (a preset's link, a default). */
export interface LinkBase {
  readonly bandwidthBitsPerSecond: number;
  readonly rttMs: number;
  readonly lossRate?: number;
}

/** Whether the fields name a whole link (bandwidth and round trip) on their own. */
export const namesWholeLink = (fields: LinkFields): fields is LinkFields & { bandwidth: string; rtt: string } =>
  fields.bandwidth !== undefined && fields.rtt !== undefined;

/**
 * The link the fields describe over `base`: each field given replaces the
 * base's, read with its unit (a value without one is refused, naming what
 * was expected); a buffer is read against the resulting link's BDP.
 */
export function linkFromFields(fields: LinkFields, base: LinkBase): Link {
  const bandwidthBitsPerSecond = fields.bandwidth === undefined ? base.bandwidthBitsPerSecond : parseRate(fields.bandwidth);
  const rttMs = fields.rtt === undefined ? base.rttMs : parseTimeMs(fields.rtt);
  const lossRate = fields.loss === undefined ? base.lossRate : parseLossRate(fields.loss);
  return {
    bandwidthBitsPerSecond,
    rttMs,
    ...(lossRate === undefined ? {} : { lossRate }),
    ...(fields.buffer === undefined
      ? {}
      : { bufferBytes: parseBufferBytes(fields.buffer, bdpBytes({ bandwidthBitsPerSecond, rttMs }), bandwidthBitsPerSecond) }),
    ...(fields.mtu === undefined ? {} : { mtuBytes: parseMtuBytes(fields.mtu) }),
  };
}
