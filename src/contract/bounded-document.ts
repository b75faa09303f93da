// A saved document (a report or a capacity run from a file, a page or a team
// store) is bounded field by field before it is kept or shown: one with a
// 15 MiB share name once made a whole store's list fail. Its share must be a
// share path (src/model/share-path.ts: a server, a share, no control
// characters), and no other text in it may be longer than a few sentences.

import { PipefillInputError } from '../model/errors.js';
import { parseSharePath } from '../model/share-path.js';

/** The longest text any field of a document may hold: a few sentences (a diagnosis, a finding's note). */
export const MAX_FIELD_CHARS = 8 * 1024;
/** How deep a document's JSON may nest: Pipefill's own go a handful deep. */
const MAX_DEPTH = 32;

/** Throws a PipefillInputError naming the first field that breaks a bound. */
export function checkDocumentBounds(json: unknown, share: unknown): void {
  if (typeof share !== 'string' || share.length > 1024)
    throw new PipefillInputError('The document names no share, or one too long to be a share path.', 'Give a report or capacity run saved by Pipefill.');
  try {
    parseSharePath(share);
  } catch (error) {
    throw new PipefillInputError(
      `The document's share is not a share path: ${error instanceof Error ? error.message.slice(0, 200) : String(error)}`,
      'Give a report or capacity run saved by Pipefill.',
    );
  }
  const walk = (value: unknown, path: string, depth: number): void => {
    if (depth > MAX_DEPTH)
      throw new PipefillInputError(`The document nests deeper than ${MAX_DEPTH} levels at ${path}.`, 'Give a report or capacity run saved by Pipefill.');
    if (typeof value === 'string') {
      if (value.length > MAX_FIELD_CHARS)
        throw new PipefillInputError(
          `${path} holds ${value.length} characters; a field of a Pipefill document holds at most ${MAX_FIELD_CHARS}.`,
          'Give a report or capacity run saved by Pipefill.',
        );
      return;
    }
    if (Array.isArray(value)) value.forEach((item, index) => walk(item, `${path}[${index}]`, depth + 1));
    else if (typeof value === 'object' && value !== null) {
      for (const [key, item] of Object.entries(value)) {
        if (key.length > 256)
          throw new PipefillInputError(`${path} has a field name of ${key.length} characters.`, 'Give a report or capacity run saved by Pipefill.');
        walk(item, `${path}.${key}`, depth + 1);
      }
    }
  };
  walk(json, 'document', 0);
}
