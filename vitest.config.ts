import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: [
      'packages/*/src/**/*.test.ts',
      'apps/*/src/**/*.test.ts',
      'infra/**/*.test.ts',
      'apps/*/e2e/**/*.e2e.test.ts',
    ],
    // The README's commands on a fresh copy (install, build, start twice: minutes) run on their own:
    // `pnpm test:readme`, which CI runs after the suite.
    exclude: [...configDefaults.exclude, ...(process.env.AGENTRY_README_TEST ? [] : ['infra/readme-commands.test.ts'])],
    globalSetup: ['packages/testkit/src/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Three files at once on the 2-core machines: most test time is waiting (fake model delays,
    // process starts, browser pages, private Postgres/Redis restarts). One at a time took the suite
    // to 19 min, two to 16; three took 10 min on an idle machine with no test flaking.
    maxWorkers: 3,
  },
});
