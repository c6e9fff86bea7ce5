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
    env: {
      NODE_ENV: 'test',
      // The AWS SDK warns once per process that its releases after January 2027 need Node 22; the lockfile pins one
      // that runs on Node 20 (README, Running at scale), so the notice is noise in test output. Child processes inherit it.
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    },
  },
});
