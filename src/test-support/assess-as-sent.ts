// An assessment called as a front end calls it: the input as sent (the share as
// typed), parsed at the contract's edge as the services parse it, then run.
// For the tests that drive src/assess directly rather than through an API.

import type { CallOptions } from '../contract/api.js';
import type { AssessInput, Report } from '../contract/report.js';
import { AssessInputSchema } from '../contract/report.js';
import { parseInput } from '../contract/validate.js';
import { assess as assessParsed } from '../assess/assess.js';

export function assess(input: AssessInput, options: CallOptions = {}): Promise<Report> {
  return assessParsed(parseInput(AssessInputSchema, input, 'assess input'), options);
}
