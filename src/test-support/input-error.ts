// For tests: the full text a person sees for a rejected input (message and hint).
import { PipefillInputError } from '../model/errors.js';

export function inputErrorText(action: () => unknown): string {
  try {
    action();
  } catch (error) {
    if (error instanceof PipefillInputError) return `${error.message}\n${error.hint}`;
    throw error;
  }
  throw new Error('Expected a PipefillInputError, but nothing was thrown.');
}
