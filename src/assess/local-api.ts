// The in-process implementation of the contract. The CLI calls it directly;
// the web host and Electron's main process expose the same object.

import type { ApiInput, ApiMethod, ApiOutput, ApiParsedInput, PipefillApi } from '../contract/api.js';
import { apiContract } from '../contract/api.js';
import { catalogue, planFromInput } from '../contract/plan.js';
import { predictScenario } from '../contract/scenario.js';
import { parseInput } from '../contract/validate.js';
import { PipefillInputError } from '../model/errors.js';

type Handlers = { readonly [M in ApiMethod]: (input: ApiParsedInput<M>) => ApiOutput<M> };

const handlers: Handlers = {
  predict: (input) => predictScenario(input),
  predictBatch: (inputs) =>
    inputs.map((input, index) => {
      try {
        return predictScenario(input);
      } catch (error) {
        if (error instanceof PipefillInputError) throw new PipefillInputError(`Scenario #${index + 1}: ${error.message}`, error.hint);
        throw error;
      }
    }),
  plan: (input) => planFromInput(input),
  catalogue: () => catalogue(),
};

async function call<M extends ApiMethod>(method: M, input: ApiInput<M>): Promise<ApiOutput<M>> {
  // Validate here too: the CLI and the web host hand over raw user input.
  const parsed = parseInput(apiContract[method].input, input, `${method} input`) as ApiParsedInput<M>;
  const handler = handlers[method] as (value: ApiParsedInput<M>) => ApiOutput<M>;
  return handler(parsed);
}

export function createLocalApi(): PipefillApi {
  return {
    predict: (input) => call('predict', input),
    predictBatch: (input) => call('predictBatch', input),
    plan: (input) => call('plan', input),
    catalogue: (input) => call('catalogue', input),
  };
}
