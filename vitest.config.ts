import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import { BrowserTestsFirst } from './test/helpers/sequencer.js';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    environment: 'node',
    pool: 'forks',
    // Test files run in parallel, each in a process of its own with its own server and database. Vitest's default is
    // one worker fewer than the cores (a single one on two cores), but an integration file spends much of its time
    // waiting (HTTP round trips, timers, child processes, the database), so one worker more than the cores keeps the
    // cores busy: on two cores 3 workers ran a sample of eight files in 55 s instead of 84 s
    // (docs/contributors/tests.md). TEST_WORKERS overrides it.
    maxWorkers: Number(process.env.TEST_WORKERS) || availableParallelism() + 1,
    // A worker keeps its modules from one test file to the next instead of loading the whole server again for each
    // (about 2 s per file, 266 s of a 540 s run on two cores). Safe because nothing in the suite mocks a module or
    // changes process-wide state it does not restore: each file starts its own server over its own database.
    isolate: false,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    globalSetup: ['test/helpers/global-setup.ts'],
    sequence: { sequencer: BrowserTestsFirst },
    reporters: ['default', './test/helpers/summary-reporter.ts'],
    env: {
      NODE_ENV: 'test',
      // The AWS SDK warns once per process that its releases after January 2027 need Node 22; the lockfile pins one
      // that runs on Node 20 (README, Running at scale), so the notice is noise in test output. Child processes inherit it.
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    },
  },
});
