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
    projects: [
      // Two files at a time (vitest's default on 2 cores is one): the unit files' CPU work fills the integration
      // files' waits on DynamoDB Local. The E2E and script files run after them, one at a time as before: their
      // time bounds (the index settling within seconds, API Gateway's time-out) hold on a machine that nothing else
      // loads.
      // Pure logic: needs nothing running, no Java and no ../shared (`npm run test:unit`).
      // One module cache for all of them (isolate: false): loading the service's modules again for every file took
      // most of the project's time.
      {
        extends: true,
        test: { name: 'unit', include: ['test/unit/**/*.test.ts'], maxWorkers: 2, isolate: false },
      },
      // Pure logic on the evaluation data in ../shared (the Cranfield collection).
      { extends: true, test: { name: 'data', include: ['test/data/**/*.test.ts'], maxWorkers: 2 } },
      // The service's modules in-process on DynamoDB Local, started once on a free port by the global setup.
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          globalSetup: ['test/support/global-setup.ts'],
          maxWorkers: 2,
          // Two files share one DynamoDB Local: a test of many sequential calls (the dictionary's backfill, 18 s
          // alone) passed 30 s beside another file's load. A test that hangs still fails, at 2 minutes.
          testTimeout: 120_000,
        },
      },
      // Over HTTP: DynamoDB Local, the stream consumer and serverless-offline, started once on free ports.
      {
        extends: true,
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          globalSetup: ['test/support/global-setup.ts'],
          sequence: { groupOrder: 1 },
          maxWorkers: 1,
        },
      },
      // `npm start` and `npm run seed` as a user runs them: each starts the stacks it needs. Run last, so that those
      // stacks do not take the 2 cores from the other projects' concurrency tests.
      {
        extends: true,
        test: {
          name: 'scripts',
          include: ['test/scripts/**/*.test.ts'],
          sequence: { groupOrder: 2 },
          maxWorkers: 1,
        },
      },
    ],
  },
});
