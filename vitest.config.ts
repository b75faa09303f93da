import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'scripts/**/*.test.ts', 'app/**/*.test.ts', 'e2e/**/*.test.ts'],
    // Integration tests start real servers (Samba, iperf3); running files one
    // at a time keeps two cores from being oversubscribed and ports unique.
    fileParallelism: true,
    testTimeout: 20_000,
  },
});
