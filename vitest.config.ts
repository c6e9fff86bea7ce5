import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    environment: 'node',
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    globalSetup: ['test/helpers/global-setup.ts'],
    reporters: ['default', './test/helpers/summary-reporter.ts'],
    env: { NODE_ENV: 'test' },
  },
});
