// For tests: the SmbError a run ends in, or a failed test when it ends in
// anything else (a success included).
import { expect } from 'vitest';
import { SmbError } from '../smb/errors.js';

export async function smbFailure(run: Promise<unknown>): Promise<SmbError> {
  const error = await run.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(SmbError);
  return error as SmbError;
}
