// A stand-in for a second process on a shared SQLite file (the worker beside the server): runs read-then-write
// transactions on one account and exits 0, or prints the error and exits 1. Usage: sqlite-writer.ts <url> <count>
import { openDatabase } from '../../db/client.js';
import { inTransaction } from '../../db/transaction.js';

const [url, count] = process.argv.slice(2);
const handle = openDatabase(url!);
try {
  for (let n = 0; n < Number(count); n++) {
    await inTransaction(handle.db, async (trx) => {
      await trx.selectFrom('accounts').select('credits').where('id', '=', 'acc_shared').executeTakeFirstOrThrow();
      await new Promise((resolve) => setTimeout(resolve, 1));
      await trx
        .updateTable('accounts')
        .set((eb) => ({ credits: eb('credits', '+', 1) }))
        .where('id', '=', 'acc_shared')
        .execute();
    });
  }
} catch (error) {
  console.error(String(error));
  process.exitCode = 1;
} finally {
  await handle.close();
}
