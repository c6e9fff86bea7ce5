import type { Reporter, TestModule } from 'vitest/node';

/** CI reads a plain `N passed, N failed, N skipped` line rather than vitest's own summary. */
export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<unknown>) {
    let passed = 0;
    let failed = unhandledErrors.length;
    let skipped = 0;
    for (const module of testModules) {
      // A file that failed to load, or a suite whose hooks threw, must fail the run even with no failed test.
      if (module.errors().length > 0) failed += 1;
      for (const suite of module.children.allSuites()) if (suite.errors().length > 0) failed += 1;
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') passed += 1;
        else if (state === 'failed') failed += 1;
        else skipped += 1;
      }
    }
    process.stdout.write(`\n${passed} passed, ${failed} failed, ${skipped} skipped\n`);
  }
}
