import { defineConfig } from 'vitest/config';

// A passing run stays quiet: tests that cause faults on purpose would print the service's ERROR lines (the local
// stack's functions and stream consumer read LOG_LEVEL, in-process handlers POWERTOOLS_LOG_LEVEL). Set either,
// e.g. `LOG_LEVEL=WARN npm test`, to see them; a failing test reports its own assertion either way.
process.env.LOG_LEVEL ??= 'SILENT';
process.env.POWERTOOLS_LOG_LEVEL ??= process.env.LOG_LEVEL;

export default defineConfig({
  test: {
    pool: 'forks',
    // `npm run test:coverage`: the service's code (lib/, functions/) as the unit tests cover it.
    coverage: {
      provider: 'v8',
      include: ['lib/**/*.ts', 'functions/**/*.ts'],
      reporter: ['text-summary', 'html'],
      reportsDirectory: '.local/coverage',
    },
    testTimeout: 30_000,
    hookTimeout: 180_000,
    // Three test files at a time, even on 2 cores (vitest's default there is one): the integration and E2E files
    // spend most of their time waiting on DynamoDB Local and serverless-offline, so a unit file's CPU work fills the
    // wait.
    maxWorkers: 3,
    projects: [
      // Pure logic: needs nothing running, no Java and no ../shared (`npm run test:unit`).
      { extends: true, test: { name: 'unit', include: ['test/unit/**/*.test.ts'] } },
      // Pure logic on the evaluation data in ../shared (the Cranfield collection).
      { extends: true, test: { name: 'data', include: ['test/data/**/*.test.ts'] } },
      // `npm start` and `npm run seed` as a user runs them: each starts the stacks it needs. Run after the others,
      // so that those stacks do not take the 2 cores from the stack project's concurrency tests.
      {
        extends: true,
        // Its two files (three stacks in all) side by side: they wait on their stacks' start-up more than they compute.
        test: {
          name: 'scripts',
          include: ['test/scripts/**/*.test.ts'],
          sequence: { groupOrder: 1 },
          maxWorkers: 2,
        },
      },
      // DynamoDB Local and serverless-offline, started once on free ports by the global setup.
      {
        extends: true,
        test: {
          name: 'stack',
          include: ['test/integration/**/*.test.ts', 'test/e2e/**/*.test.ts'],
          globalSetup: ['test/support/global-setup.ts'],
        },
      },
    ],
  },
});
