// Whether a value fits a knob of the catalogue: its type, its range, its
// spelling, and no character that could end a line in a file Pipefill writes.
// Pure: the appliers check recommendation files with it (src/apply/trusted.ts)
// and the lab checks the Samba options a person gives it (samba-option.ts).

import type { Knob } from './knobs.js';

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
      if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0 || value > INTEGER_CEILING)
        return `must be a whole number, not ${JSON.stringify(value)}`;
      if (withinRange && k.range && (value < k.range[0] || value > k.range[1])) return `must be between ${k.range[0]} and ${k.range[1]}, not ${value}`;
      return undefined;
    }
    case 'boolean':
      return typeof value === 'boolean' ? undefined : `must be true or false, not ${JSON.stringify(value)}`;
    case 'enum':
      return typeof value === 'string' && (k.values ?? []).includes(value)
        ? undefined
        : `must be one of ${(k.values ?? []).join(', ')}, not ${JSON.stringify(value)}`;
    case 'text': {
      if (typeof value !== 'string') return `must be text, not ${JSON.stringify(value)}`;
      if (hasControl(value)) return 'must be one line without control characters';
      if (!k.pattern?.test(value)) return `is not a valid ${k.name} value: ${JSON.stringify(value)}${k.patternHint ? ` (${k.patternHint})` : ''}`;
      return undefined;
    }
  }
}
