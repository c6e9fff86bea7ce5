import { describe, it } from 'vitest';
import { mysqlSkipReason, type TestDialect, TEST_DIALECTS } from './databases.js';

/**
 * Runs a suite once per database. SQLite always runs; MySQL runs when TEST_MYSQL_URL is set, is mandatory under
 * CI=true (failing, never skipping, when it is missing) and is skipped locally with the reason in the title.
 */
export function describeEachDatabase(title: string, body: (dialect: TestDialect) => void) {
  for (const dialect of TEST_DIALECTS) {
    const skipReason = dialect === 'mysql' ? mysqlSkipReason() : null;
    if (skipReason) {
      describe.skip(`${title} [${dialect}: skipped, ${skipReason}]`, () => {
        it('runs against MySQL', () => {});
      });
      continue;
    }
    describe(`${title} [${dialect}]`, () => body(dialect));
  }
}

/**
 * Runs a suite on SQLite alone, for a file whose requests never reach SQL that differs between the dialects (HTTP
 * framing, input validation before any query, documents, clients' wire format, engine protocols); `why` says which,
 * and shows in the suite's title. The rule and the list of such files: docs/contributors/tests.md.
 */
export function describeOnSqlite(title: string, why: string, body: (dialect: TestDialect) => void) {
  describe(`${title} [sqlite; MySQL adds nothing: ${why}]`, () => body('sqlite'));
}
