// Turns a zod failure into the same typed input error the model throws, so
// every front end shows one kind of message: what was wrong, and where.

import type { z } from 'zod';
import { PipefillInputError } from '../model/errors.js';

export function parseInput<Schema extends z.ZodType>(schema: Schema, value: unknown, what: string): z.output<Schema> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const details = result.error.issues.map((issue) => {
    // Array positions are shown counting from 1, as a person numbers scenarios in a file.
    const where = issue.path.length > 0 ? issue.path.map((key) => (typeof key === 'number' ? `#${key + 1}` : String(key))).join('.') : 'input';
    return `${where}: ${issue.message}`;
  });
  throw new PipefillInputError(
    `Invalid ${what}: ${details.join('; ')}.`,
    `Check ${what} against the documented fields (docs/cli.md, or pipefill <command> --help).`,
  );
}
