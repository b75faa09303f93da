import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'scripts/**/*.test.ts', 'app/**/*.test.ts', 'e2e/**/*.test.ts'],
    // Files run in parallel, as many at once as the machine has cores (two
    // here). Integration tests start their own servers (Samba, iperf3) on
    // free ports and in their own namespaces, so they do not collide; speed
    // targets are met in the benchmarks, not here.
    fileParallelism: true,
    testTimeout: 20_000,
  },
});
