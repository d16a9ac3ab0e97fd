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
  },
});
