import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { takePgPassword } from './pg-password.js';

describe('PGPASSWORD', () => {
  it('is taken out of the environment once, kept for the store, and no child started after inherits it (issue 35, item 10)', () => {
    const env: NodeJS.ProcessEnv = { PGPASSWORD: 'hunter2', PATH: process.env.PATH };
    expect(takePgPassword(env)).toBe('hunter2');
    expect(env.PGPASSWORD).toBeUndefined();
    // Later calls answer the same, whatever the environment holds now.
    expect(takePgPassword({ PGPASSWORD: 'other' })).toBe('hunter2');
    const child = spawnSync('sh', ['-c', 'printf %s "${PGPASSWORD-unset}"'], { env, encoding: 'utf8' });
    expect(child.stdout).toBe('unset');
  });
});
