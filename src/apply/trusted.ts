// A recommendations file is untrusted input: a colleague mails it, a ticket
// carries it. Nothing from it reaches a script, a configuration file or a
// comment as it was written. Each recommendation must name a knob of the
// catalogue; its value (and the value it claims is current) must fit that
// knob's type, range and spelling; the command is rebuilt by the catalogue
// from the checked value; and every free text is flattened to one printable
// line, so a newline in `why` cannot start a command after a `#`.

import type { KnobValue } from '../advice/knobs.js';
import { knob } from '../advice/knobs.js';
import { knobValueProblem, oneLine } from '../advice/knob-values.js';
import type { RecommendationOut } from '../contract/recommend.js';
import { PipefillInputError } from '../model/errors.js';

export { hasControl, knobValueProblem, oneLine } from '../advice/knob-values.js';

function checked(r: RecommendationOut, index: number): RecommendationOut {
  const where = `Recommendation ${index + 1} (${JSON.stringify(oneLine(String(r.id)).slice(0, 80))})`;
  const k = knob(r.id);
  if (!k)
    throw new PipefillInputError(
      `${where} names a setting Pipefill does not know.`,
      "Only settings from Pipefill's catalogue can be applied; produce the file with `pipefill recommend --json`.",
    );
  if (r.platform !== k.platform)
    throw new PipefillInputError(
      `${where} claims platform ${JSON.stringify(oneLine(r.platform))}; the setting belongs to ${k.platform}.`,
      'The file has been edited; produce it again with `pipefill recommend --json`.',
    );
  const valueProblem = knobValueProblem(k, r.value, true);
  if (valueProblem)
    throw new PipefillInputError(`${where}: the value ${valueProblem}.`, 'Nothing was written. Produce the file again with `pipefill recommend --json`.');
  const currentProblem = knobValueProblem(k, r.current, false);
  if (currentProblem)
    throw new PipefillInputError(
      `${where}: the current value ${currentProblem}.`,
      'Nothing was written. Produce the file again with `pipefill recommend --json`.',
    );
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
