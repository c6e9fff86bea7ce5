/** What the two drivers' errors mean, in one place, so callers branch on meaning rather than driver codes. */

const DEADLOCK_ERRNOS = new Set([1213 /* ER_LOCK_DEADLOCK */, 1205 /* ER_LOCK_WAIT_TIMEOUT */]);

/** InnoDB rolled the statement or transaction back whole: running it again is safe. */
export function isDeadlock(error: unknown): boolean {
  return DEADLOCK_ERRNOS.has((error as { errno?: number })?.errno ?? 0);
}

/** A unique or primary key already holds this value. */
export function isUniqueViolation(error: unknown): boolean {
  const e = error as { code?: string; errno?: number };
  return (
    e?.code === 'ER_DUP_ENTRY' ||
    e?.errno === 1062 ||
    e?.code === 'SQLITE_CONSTRAINT_UNIQUE' ||
    e?.code === 'SQLITE_CONSTRAINT_PRIMARYKEY'
  );
}
