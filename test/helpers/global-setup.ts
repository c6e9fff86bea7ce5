import type { TestProject } from 'vitest/node';
import {
  createDatabaseTemplates,
  type DatabaseTemplates,
  dropDatabaseTemplates,
  mysqlSkipReason,
} from './databases.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The migrated databases each test file's server starts from (a copy, never the template itself). */
    databaseTemplates: DatabaseTemplates;
  }
}

/** Runs once per `npm test`: migrates one template database per dialect that test files copy instead of migrating. */
export default async function setup(project: TestProject) {
  const reason = mysqlSkipReason();
  if (reason) console.warn(`\n[roomstage tests] Skipping the MySQL half: ${reason}\n`);
  const templates = await createDatabaseTemplates({ mysql: !reason });
  project.provide('databaseTemplates', templates);
  return () => dropDatabaseTemplates(templates);
}
