import { spawnSync } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { readPassword } from './password.js';

const NAME = 'PIPEFILL_PASSWORD_TEST_VARIABLE';
afterEach(() => Reflect.deleteProperty(process.env, NAME));

describe('a password named with --password-env (issue 47, item 7)', () => {
  it('is taken out of the environment as it is read, so no child process inherits it', async () => {
    process.env[NAME] = 's3cret-for-the-share';
    expect(await readPassword(NAME, 'alice')).toBe('s3cret-for-the-share');
    expect(process.env[NAME]).toBeUndefined();
    // What a child started now (ss, iperf3, Chromium) is given.
    const child = spawnSync('env', { encoding: 'utf8' });
    expect(child.stdout).not.toContain(NAME);
    expect(child.stdout).not.toContain('s3cret-for-the-share');
  });

  it('reads the same again in this process, and a new value where the variable is set again', async () => {
    process.env[NAME] = 'first';
    expect(await readPassword(NAME, 'alice')).toBe('first');
    expect(await readPassword(NAME, 'alice')).toBe('first');
    process.env[NAME] = 'second';
    expect(await readPassword(NAME, 'alice')).toBe('second');
    expect(process.env[NAME]).toBeUndefined();
  });

  it('names a variable that was never set', async () => {
    await expect(readPassword('PIPEFILL_PASSWORD_TEST_NEVER_SET', 'alice')).rejects.toThrow(/PIPEFILL_PASSWORD_TEST_NEVER_SET is not set/);
  });
});
