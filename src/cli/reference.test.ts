import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { COMMAND_USAGES } from './main.js';
import { cliReference } from './reference.js';

describe('docs/cli.md', () => {
  it('is the usage text the CLI prints (run `npm run docs:cli` after changing a command)', () => {
    const written = readFileSync(new URL('../../docs/cli.md', import.meta.url), 'utf8');
    expect(written).toBe(cliReference());
    for (const [name, usage] of Object.entries(COMMAND_USAGES)) expect(written, name).toContain(usage);
  });
});
