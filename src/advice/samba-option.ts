// `pipefill lab up --samba-option 'smb2 max credits = 16'`: a person
// reproduces a server's setting in the lab's Samba. Only performance settings
// from the knob catalogue pass (credits, request sizes, socket options, aio,
// multichannel, signing and encryption): no paths, no commands, nothing that
// could add a line to smb.conf. Each value is checked as the appliers check
// a recommendation's (knob-values.ts), outside the range Pipefill would
// propose too, since reproducing a badly set server is the point. Pure.

import type { Knob, KnobValue } from './knobs.js';
import { KNOBS } from './knobs.js';
import { hasControl, knobValueProblem } from './knob-values.js';
import { PipefillInputError } from '../model/errors.js';

export interface SambaOption {
  readonly name: string;
  readonly value: string;
}

/** The Samba settings a lab may take: the catalogue's, by their smb.conf names. */
export function sambaOptionNames(): string[] {
  return KNOBS.filter((k) => k.platform === 'samba').map((k) => k.name);
}

const normalName = (text: string) => text.trim().toLowerCase().replace(/\s+/g, ' ');

function valueOf(k: Knob, text: string): KnobValue {
  switch (k.type) {
    case 'integer':
    case 'bytes':
      return /^\d{1,15}$/.test(text) ? Number(text) : text;
    case 'boolean':
      return /^(yes|true|on)$/i.test(text) ? true : /^(no|false|off)$/i.test(text) ? false : text;
    default:
      return text;
  }
}

/** One `name = value` as smb.conf has it, checked against the catalogue; a clear error otherwise. */
export function parseSambaOption(text: string): SambaOption {
  const usage = `A performance setting as smb.conf writes it, e.g. 'smb2 max credits = 16'. Allowed: ${sambaOptionNames().join(', ')}.`;
  if (text.length > 300 || hasControl(text)) throw new PipefillInputError('A Samba option is one short line without control characters.', usage);
  const equals = text.indexOf('=');
  if (equals < 0) throw new PipefillInputError(`The Samba option ${JSON.stringify(text)} has no "=".`, usage);
  const name = normalName(text.slice(0, equals));
  const raw = text.slice(equals + 1).trim();
  const k = KNOBS.find((candidate) => candidate.platform === 'samba' && candidate.name === name);
  if (!k) throw new PipefillInputError(`${JSON.stringify(name)} is not a Samba setting the lab takes.`, usage);
  const value = valueOf(k, raw);
  const problem = knobValueProblem(k, value, false);
  if (problem) throw new PipefillInputError(`${k.name} ${problem}.`, usage);
  // Written back through the catalogue's own spelling, never the person's text.
  const line = k.command(value);
  return { name: k.name, value: line.slice(line.indexOf('=') + 1).trim() };
}
