// A recommendations file is untrusted input: a colleague mails it, a ticket
// carries it. Nothing from it reaches a script, a configuration file or a
// comment as it was written. Each recommendation must name a knob of the
// catalogue; its value (and the value it claims is current) must fit that
// knob's type, range and spelling; the command is rebuilt by the catalogue
// from the checked value; and every free text is flattened to one printable
// line, so a newline in `why` cannot start a command after a `#`.

import type { Knob, KnobValue } from '../advice/knobs.js';
import { knob } from '../advice/knobs.js';
import type { RecommendationOut } from '../contract/recommend.js';
import { PipefillInputError } from '../model/errors.js';

/** C0 and C1 controls, DEL, and the Unicode line and paragraph separators some editors and shells treat as newlines. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;

/** Free text as one printable line (pure). */
export function oneLine(text: string): string {
  return text.replace(CONTROL, ' ');
}

/** True when a value carries anything that could end a line or a statement in a file Pipefill writes. */
export function hasControl(text: string): boolean {
  return new RegExp(CONTROL.source).test(text);
}

/** The largest integer any knob takes (a DWORD, or a byte count a 64-bit kernel holds as a long). */
const INTEGER_CEILING = Number.MAX_SAFE_INTEGER;

/**
 * Why a value does not fit a knob, or undefined when it fits. `withinRange`
 * holds proposals to the range Pipefill proposes within; a present value
 * (`current`) may lie outside it (a server cut to 16 credits), but never
 * outside the type.
 */
export function knobValueProblem(k: Knob, value: unknown, withinRange: boolean): string | undefined {
  switch (k.type) {
    case 'integer':
    case 'bytes': {
      if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0 || value > INTEGER_CEILING) return `must be a whole number, not ${JSON.stringify(value)}`;
      if (withinRange && k.range && (value < k.range[0] || value > k.range[1])) return `must be between ${k.range[0]} and ${k.range[1]}, not ${value}`;
      return undefined;
    }
    case 'boolean':
      return typeof value === 'boolean' ? undefined : `must be true or false, not ${JSON.stringify(value)}`;
    case 'enum':
      return typeof value === 'string' && (k.values ?? []).includes(value) ? undefined : `must be one of ${(k.values ?? []).join(', ')}, not ${JSON.stringify(value)}`;
    case 'text': {
      if (typeof value !== 'string') return `must be text, not ${JSON.stringify(value)}`;
      if (hasControl(value)) return 'must be one line without control characters';
      if (!k.pattern?.test(value)) return `is not a valid ${k.name} value: ${JSON.stringify(value)}${k.patternHint ? ` (${k.patternHint})` : ''}`;
      return undefined;
    }
  }
}

function checked(r: RecommendationOut, index: number): RecommendationOut {
  const where = `Recommendation ${index + 1} (${JSON.stringify(oneLine(String(r.id)).slice(0, 80))})`;
  const k = knob(r.id);
  if (!k) throw new PipefillInputError(`${where} names a setting Pipefill does not know.`, 'Only settings from Pipefill\'s catalogue can be applied; produce the file with `pipefill recommend --json`.');
  if (r.platform !== k.platform) throw new PipefillInputError(`${where} claims platform ${JSON.stringify(oneLine(r.platform))}; the setting belongs to ${k.platform}.`, 'The file has been edited; produce it again with `pipefill recommend --json`.');
  const valueProblem = knobValueProblem(k, r.value, true);
  if (valueProblem) throw new PipefillInputError(`${where}: the value ${valueProblem}.`, 'Nothing was written. Produce the file again with `pipefill recommend --json`.');
  const currentProblem = knobValueProblem(k, r.current, false);
  if (currentProblem) throw new PipefillInputError(`${where}: the current value ${currentProblem}.`, 'Nothing was written. Produce the file again with `pipefill recommend --json`.');
  return {
    ...r,
    knob: k.name,
    default: k.defaultValue,
    // The catalogue writes the command; the file's own text is never used.
    command: k.command(r.value as KnobValue),
    test: oneLine(r.test),
    tests: r.tests.map((t) => ({ ...t, test: oneLine(t.test) })),
    why: oneLine(r.why),
    ...(r.caution === undefined ? {} : { caution: oneLine(r.caution) }),
    source: k.source,
  };
}

/** Recommendations fit to write into scripts and configuration, or a clear error naming the first that is not (pure). */
export function trustedRecommendations(recommendations: readonly RecommendationOut[]): RecommendationOut[] {
  return recommendations.map(checked);
}
