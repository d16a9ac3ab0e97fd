import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: [
      'packages/*/src/**/*.test.ts',
      'apps/*/src/**/*.test.ts',
      'infra/**/*.test.ts',
      'apps/*/e2e/**/*.e2e.test.ts',
    ],
    globalSetup: ['packages/testkit/src/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Two files at once on the 2-core machines: most test time is waiting (fake model delays,
    // process starts, private Postgres/Redis restarts), and one at a time took the suite to 19 min.
    maxWorkers: 2,
  },
});
