import { mysqlSkipReason } from './databases.js';

export default function setup() {
  const reason = mysqlSkipReason();
  if (reason) console.warn(`\n[roomstage tests] Skipping the MySQL half: ${reason}\n`);
}
