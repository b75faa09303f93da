// The dependency direction of docs/architecture.md ("Layers") is enforced by ESLint; this checks the
// rules still fire, so a config change cannot quietly switch them off.

import { ESLint } from 'eslint';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const eslint = new ESLint({ cwd: join(import.meta.dirname, '..') });

async function restrictedImportErrors(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return (result?.messages ?? []).filter((m) => m.ruleId === 'no-restricted-imports' || m.ruleId === 'layers/allowed-layers').map((m) => m.message);
}

describe('layering rules', () => {
  it.each([
    ['src/model/x.ts', "import { readFileSync } from 'node:fs';\nexport const x = readFileSync;", /src\/model is pure/],
    ['src/model/x.ts', "import { z } from 'zod';\nexport const x = z;", /src\/model is pure/],
    ['src/model/x.ts', "import { x as y } from '../contract/api.js';\nexport const x = y;", /src\/model is pure/],
    ['src/advice/x.ts', "import { y } from '../contract/api.js';\nexport const x = y;", /src\/advice may import only src\/model/],
    ['src/contract/x.ts', "import { y } from '../smb/session.js';\nexport const x = y;", /src\/contract may import only/],
    [
      'src/smb/x.ts',
      "import { y } from '../service/local-api.js';\nexport const x = y;",
      /src\/smb may import only src\/model, src\/platform .*not src\/service/,
    ],
    ['src/assess/x.ts', "import { y } from '../cli/main.js';\nexport const x = y;", /src\/assess may import only .*not src\/cli/],
    // The protocol library knows nothing of the copy emulator above it, and the emulator nothing of the probes above it.
    ['src/smb/x.ts', "import { y } from '../copy/copy-test.js';\nexport const x = y;", /src\/smb may import only .*not src\/copy/],
    ['src/copy/x.ts', "import { y } from '../probe/rtt.js';\nexport const x = y;", /src\/copy may import only .*not src\/probe/],
    // The two leaks issue 36 found: the orchestrators importing each other, and test code in a layer.
    ['src/capacity/x.ts', "import { y } from '../assess/assess.js';\nexport const x = y;", /src\/capacity may import only .*not src\/assess/],
    ['src/assess/x.ts', "import { y } from '../capacity/capacity.js';\nexport const x = y;", /src\/assess may import only .*not src\/capacity/],
    ['src/store/x.ts', "import { y } from '../test-support/store-suite.js';\nexport const x = y;", /src\/store may import only .*not src\/test-support/],
    // From a nested folder, however many ../ it takes.
    ['src/cli/commands/x.ts', "import { y } from '../../assess/assess.js';\nexport const x = y;", /src\/cli may import only .*not src\/assess/],
    ['src/smb/security/x.ts', "import { y } from '../../probe/rtt.js';\nexport const x = y;", /src\/smb may import only .*not src\/probe/],
    ['src/web/x.ts', "import { y } from '../../app/main/main.js';\nexport const x = y;", /src\/web may not import outside src\//],
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
    ['src/copy/x.ts', "import { y } from '../smb/session.js';\nexport const x = y;"],
    ['src/service/x.ts', "import { y } from '../capacity/capacity.js';\nexport const x = y;"],
    ['src/cli/commands/x.ts', "import { y } from '../output.js';\nimport { z } from '../../service/local-api.js';\nexport const x = [y, z];"],
    ['app/renderer/x.ts', "import { y } from '../../src/model/units.js';\nexport const x = y;"],
  ])('%s may import from below', async (filePath, code) => {
    expect(await restrictedImportErrors(filePath, code)).toEqual([]);
  });
});
