import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';
import { ENGINE_NODE_FLAGS } from './src/platform/engine-flags.js';

// Every run the tests make (the CLI's, the web mode's, the lab's) keeps its
// site history in a folder of this test run's own, never in the person's.
const dataDir = mkdtempSync(join(tmpdir(), 'pipefill-test-data-'));
process.once('exit', () => rmSync(dataDir, { recursive: true, force: true }));

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'scripts/**/*.test.ts', 'app/**/*.test.ts', 'e2e/**/*.test.ts'],
    // Files run in parallel, one fewer at once than the machine has cores
    // (Vitest's default): on two cores, one at a time. Two at once beside a
    // busy core saved a tenth of the time (789 s against 860 s) and starved
    // the lab's forwarder enough to drop packets under the e2e demo run.
    // Integration tests start their own servers (Samba, iperf3) on free
    // ports and in their own namespaces, so they do not collide; speed
    // targets are met in the benchmarks, not here.
    fileParallelism: true,
    testTimeout: 20_000,
    // Tests that drive copies in their own process run them as the product
    // does: with the engine's V8 flags (src/platform/engine-flags.ts).
    execArgv: [...ENGINE_NODE_FLAGS],
    env: { PIPEFILL_DATA_DIR: dataDir, PIPEFILL_STORE: '' },
  },
});
