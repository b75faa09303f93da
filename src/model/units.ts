// Parsing and printing of the three quantities every Pipefill input carries:
// link rates (bits per second), times (milliseconds) and sizes (bytes).
// Rates are decimal bits as carriers sell them; sizes keep the SI/IEC split
// (`MB` = 10^6, `MiB` = 2^20) because TR-3869 and Windows tools disagree on it.

import { PipefillInputError } from './errors.js';

/** Named carrier and Ethernet rates, in bits per second. */
export const NAMED_RATES_BPS: Readonly<Record<string, number>> = {
  // SONET line rates (TR-3869 lists OC-1, OC-3, OC-12 at these figures).
  oc1: 51.84e6,
  oc3: 155.52e6,
  oc12: 622.08e6,
  oc48: 2488.32e6,
  // PDH carriers seen on branch links.
  t1: 1.544e6,
  e1: 2.048e6,
  t3: 44.736e6,
  e3: 34.368e6,
  // Ethernet.
  fe: 100e6,
  fastethernet: 100e6,
  gbe: 1e9,
  '10gbe': 10e9,
};

const RATE_UNITS_BPS: Readonly<Record<string, number>> = {
  bit: 1,
  bps: 1,
  'b/s': 1,
  kbit: 1e3,
  kbps: 1e3,
  'kb/s': 1e3,
  mbit: 1e6,
  mbps: 1e6,
  'mb/s': 1e6,
  gbit: 1e9,
  gbps: 1e9,
  'gb/s': 1e9,
};

const TIME_UNITS_MS: Readonly<Record<string, number>> = {
  us: 1e-3,
  µs: 1e-3,
  ms: 1,
  s: 1000,
  sec: 1000,
  min: 60_000,
};

const SIZE_UNITS_BYTES: Readonly<Record<string, number>> = {
  b: 1,
  byte: 1,
  bytes: 1,
  kb: 1e3,
  mb: 1e6,
  gb: 1e9,
  tb: 1e12,
  kib: 2 ** 10,
  mib: 2 ** 20,
  gib: 2 ** 30,
  tib: 2 ** 40,
};

const NUMBER_WITH_UNIT = /^\s*([0-9]*\.?[0-9]+(?:e[+-]?[0-9]+)?)\s*([a-zµ/0-9]*)\s*$/i;

function splitNumberAndUnit(text: string): { value: number; unit: string } | undefined {
  const match = NUMBER_WITH_UNIT.exec(text);
  if (!match?.[1]) return undefined;
  return { value: Number(match[1]), unit: (match[2] ?? '').toLowerCase() };
}

function fail(kind: string, text: string, expected: string): never {
  throw new PipefillInputError(`Cannot read ${JSON.stringify(text)} as ${kind}.`, `Expected ${expected}.`);
}

const RATE_EXPECTED =
  'a number with a unit (bit, kbit, mbit, gbit, or kbps/mbps/gbps), e.g. 155.52mbit or 1gbit, or a name: OC1, OC3, OC12, OC48, T1, E1, T3, E3, FE, GbE, 10GbE';

/** Parses `155.52mbit`, `1gbit`, `OC3`, `GbE` into bits per second. */
export function parseRate(text: string): number {
  const named = NAMED_RATES_BPS[text.trim().toLowerCase().replace(/[-\s]/g, '')];
  if (named !== undefined) return named;
  const parts = splitNumberAndUnit(text);
  const factor = parts ? RATE_UNITS_BPS[parts.unit] : undefined;
  if (!parts || factor === undefined || parts.value <= 0) fail('a link rate', text, RATE_EXPECTED);
  return parts.value * factor;
}

/** Parses `32ms`, `0.5s`, `800us` into milliseconds. A bare number is refused: the unit matters too much. */
export function parseTimeMs(text: string): number {
  const parts = splitNumberAndUnit(text);
  const factor = parts ? TIME_UNITS_MS[parts.unit] : undefined;
  if (!parts || factor === undefined) fail('a time', text, 'a number with a unit (us, ms, s), e.g. 32ms or 0.075s');
  return parts.value * factor;
}

/** Parses `100MB` (10^8 bytes), `100MiB` (2^20 x 100), `64KiB`, `512B` into bytes. */
export function parseSizeBytes(text: string): number {
  const parts = splitNumberAndUnit(text);
  const factor = parts ? SIZE_UNITS_BYTES[parts.unit] : undefined;
  if (!parts || factor === undefined || parts.value <= 0) {
    fail('a size', text, 'a number with a unit: B, KB, MB, GB (powers of 1000) or KiB, MiB, GiB (powers of 1024), e.g. 100MB or 32MiB');
  }
  return Math.round(parts.value * factor);
}

/**
 * A bottleneck buffer as people give it: a size (`64KB`), a share of the
 * path's BDP (`0.25bdp`) or the time it drains in at the line rate (`20ms`,
 * how router vendors quote it). Returns bytes.
 */
export function parseBufferBytes(text: string, bdpBytes: number, bandwidthBitsPerSecond: number): number {
  const trimmed = text.trim();
  const multiple = /^([0-9]*\.?[0-9]+)\s*bdp$/i.exec(trimmed);
  if (multiple?.[1] !== undefined) {
    const value = Number(multiple[1]);
    if (!(value >= 0 && value <= 100)) fail('a buffer', text, 'a share of the BDP from 0 to 100, e.g. 0.25bdp');
    return Math.round(value * bdpBytes);
  }
  const bytes = /^[0-9.]+\s*(us|µs|ms|s)$/i.test(trimmed)
    ? Math.round((parseTimeMs(trimmed) / 1000) * (bandwidthBitsPerSecond / 8))
    : trimmed === '0'
      ? 0
      : parseSizeBytes(trimmed);
  // No router queues gigabytes for one port; a figure like that is a typo, and "deep enough" is the default.
  if (bytes > MAX_BUFFER_BYTES)
    fail('a router buffer', text, `at most ${MAX_BUFFER_BYTES / 2 ** 30} GiB (leave the buffer out for one BDP, deep enough for one flow)`);
  return bytes;
}

const MAX_BUFFER_BYTES = 4 * 2 ** 30;

/** Parses `0.1%` or a fraction `0.001` into a loss rate in [0, 1). */
export function parseLossRate(text: string): number {
  const trimmed = text.trim();
  const percent = trimmed.endsWith('%');
  const value = Number(percent ? trimmed.slice(0, -1) : trimmed);
  const rate = percent ? value / 100 : value;
  if (trimmed === '' || trimmed === '%' || !Number.isFinite(rate) || rate < 0 || rate >= 1) {
    fail('a packet-loss rate', text, 'a percentage such as 0.1% or a fraction below 1 such as 0.001');
  }
  return rate;
}

function trimNumber(value: number): string {
  if (value >= 100) return value.toFixed(0);
  if (value >= 10) return value.toFixed(1).replace(/\.0$/, '');
  return value.toFixed(2).replace(/\.?0+$/, '');
}

/** `155520000` -> `155.52 Mb/s`. */
export function formatRate(bitsPerSecond: number): string {
  if (bitsPerSecond >= 1e9) return `${trimNumber(bitsPerSecond / 1e9)} Gb/s`;
  if (bitsPerSecond >= 1e6) return `${trimNumber(bitsPerSecond / 1e6)} Mb/s`;
  if (bitsPerSecond >= 1e3) return `${trimNumber(bitsPerSecond / 1e3)} kb/s`;
  return `${trimNumber(bitsPerSecond)} b/s`;
}

/** Milliseconds as `32 ms`, `1.5 s`, `4 min 10 s`. */
export function formatDuration(ms: number): string {
  if (ms < 1) return `${trimNumber(ms * 1000)} µs`;
  if (ms < 1000) return `${trimNumber(ms)} ms`;
  const seconds = ms / 1000;
  if (seconds < 120) return `${trimNumber(seconds)} s`;
  // Round once, then split, so 3599.6 s is "60 min", never "59 min 60 s"; whole minutes drop the "0 s".
  const wholeSeconds = Math.round(seconds);
  const minutes = Math.floor(wholeSeconds / 60);
  const rest = wholeSeconds - minutes * 60;
  if (minutes < 120) return rest === 0 ? `${minutes} min` : `${minutes} min ${rest} s`;
  const wholeMinutes = Math.round(seconds / 60);
  const hours = Math.floor(wholeMinutes / 60);
  return `${hours} h ${wholeMinutes - hours * 60} min`;
}

/** Sizes in decimal units (what a link moves): `11 MB`, `60 KB`. */
export function formatBytes(bytes: number): string {
  if (bytes >= 1e9) return `${trimNumber(bytes / 1e9)} GB`;
  if (bytes >= 1e6) return `${trimNumber(bytes / 1e6)} MB`;
  if (bytes >= 1e3) return `${trimNumber(bytes / 1e3)} KB`;
  return `${Math.round(bytes)} B`;
}

/**
 * I/O and window sizes in binary units, as SMB and TCP define them:
 * `60 KiB`, `1 MiB`, `2 MiB` (2096560 B shows as `2 MiB`, to two figures).
 */
export function formatBinaryBytes(bytes: number): string {
  if (bytes >= 2 ** 30) return `${trimNumber(bytes / 2 ** 30)} GiB`;
  if (bytes >= 2 ** 20) return `${trimNumber(bytes / 2 ** 20)} MiB`;
  if (bytes >= 2 ** 10) return `${trimNumber(bytes / 2 ** 10)} KiB`;
  return `${Math.round(bytes)} B`;
}

/** Bytes per second as megabytes per second, the unit copy dialogs show. */
export function formatByteRate(bytesPerSecond: number): string {
  return `${formatBytes(bytesPerSecond)}/s`;
}

/** A loss rate as every view says it, to two significant figures ("0.75%"): the one figure the model takes. */
export function formatLossRate(fraction: number): string {
  // Two significant digits, without a trailing zero: 0.9%, not 0.90% (as a person writes a share). Below a
  // millionth of a percent, JavaScript would print an exponent ("1e-7%"): no copy sends that little again.
  const percent = Number((fraction * 100).toPrecision(2));
  return Math.abs(percent) > 0 && Math.abs(percent) < 1e-6 ? '<0.000001%' : `${percent}%`;
}
