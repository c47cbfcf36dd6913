import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 180_000,
    projects: [
      // Pure logic: needs nothing running.
      { extends: true, test: { name: 'unit', include: ['test/unit/**/*.test.ts'] } },
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
