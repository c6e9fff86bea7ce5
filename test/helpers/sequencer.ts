import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Browser tests first, then vitest's own order (slowest first once a run has timed them, largest files first on a
 * fresh clone, as CI always is). A browser test runs for minutes and keeps Chromium busy; started last, as its small
 * files would be on a fresh clone, it leaves one worker running alone at the end of the suite.
 */
export class BrowserTestsFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const browser = (file: TestSpecification) => file.moduleId.includes('/test/e2e/');
    return [...sorted.filter(browser), ...sorted.filter((file) => !browser(file))];
  }
}
