// The dependency direction of DESIGN.md is enforced by ESLint; this checks the
// rules still fire, so a config change cannot quietly switch them off.

import { ESLint } from 'eslint';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const eslint = new ESLint({ cwd: join(import.meta.dirname, '..') });

async function restrictedImportErrors(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return (result?.messages ?? []).filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

describe('layering rules', () => {
  it.each([
    ['src/model/x.ts', "import { readFileSync } from 'node:fs';\nexport const x = readFileSync;", /src\/model is pure/],
    ['src/model/x.ts', "import { z } from 'zod';\nexport const x = z;", /src\/model is pure/],
    ['src/model/x.ts', "import { x as y } from '../contract/api.js';\nexport const x = y;", /src\/model is pure/],
    ['src/advice/x.ts', "import { y } from '../contract/api.js';\nexport const x = y;", /src\/advice may import only src\/model/],
    ['src/contract/x.ts', "import { y } from '../smb/session.js';\nexport const x = y;", /src\/contract may import only/],
    ['src/smb/x.ts', "import { y } from '../assess/local-api.js';\nexport const x = y;", /may not import the orchestrator/],
    ['src/assess/x.ts', "import { y } from '../cli/main.js';\nexport const x = y;", /may not import the CLI/],
    ['app/renderer/x.ts', "import { y } from '../../src/smb/session.js';\nexport const x = y;", /renderer imports only/],
    ['app/renderer/views/x.ts', "import { y } from '../../../src/assess/local-api.js';\nexport const x = y;", /renderer imports only/],
    ['app/renderer/x.ts', "import { y } from '../main/window.js';\nexport const x = y;", /renderer imports only/],
    ['app/renderer/x.ts', "import { readFileSync } from 'node:fs';\nexport const x = readFileSync;", /renderer imports only/],
  ])('%s may not import what the code below it does', async (filePath, code, message) => {
    const errors = await restrictedImportErrors(filePath, code);
    expect(errors.join('\n')).toMatch(message);
  });

  it.each([
    ['src/model/x.ts', "import { y } from './units.js';\nexport const x = y;"],
    ['src/contract/x.ts', "import { z } from 'zod';\nimport { y } from '../model/units.js';\nexport const x = [z, y];"],
    ['src/assess/x.ts', "import { y } from '../contract/api.js';\nexport const x = y;"],
    ['app/renderer/x.ts', "import { y } from '../../src/model/units.js';\nexport const x = y;"],
  ])('%s may import from below', async (filePath, code) => {
    expect(await restrictedImportErrors(filePath, code)).toEqual([]);
  });
});
