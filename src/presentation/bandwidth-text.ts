// The probe's bandwidth test as every view says it (the Results view, the
// report's page on how it was measured, the CLI): the data it moved, which
// way and how, what TCP sent again, and, where the copies found the path
// losing packets, the same test on several streams at once, which the model
// took for the line (src/assess/line-under-loss.ts). Pure.

import type { ProbeResult } from '../contract/probe.js';
import { formatLossRate, formatRate } from '../model/units.js';

export function bandwidthText(bandwidth: ProbeResult['bandwidth']): string {
  const { mbps, direction, method, via, lossPercent, fallbackReason, parallel } = bandwidth;
  // As every view says a loss rate (formatLossRate): beside the model's '0.95%', this said '1.892%' (2026-11-28).
  const resent = lossPercent === undefined ? '' : `, about ${formatLossRate(lossPercent / 100)} retransmitted`;
  const streams = parallel
    ? `; ${formatRate(parallel.mbps * 1e6)} on ${parallel.streams} streams at once, run again where the copies found the path losing packets`
    : '';
  return `${formatRate(mbps * 1e6)} of data ${direction} by ${method}${via ? ` (${via})` : ''}${resent}${fallbackReason ? `: ${fallbackReason}` : ''}${streams}`;
}
