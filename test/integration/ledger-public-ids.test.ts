import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Db, openDatabase } from '../../db/client.js';
import { migrateToLatest } from '../../db/migrate.js';
import { createAccount } from '../../server/domain/accounts/accounts.js';
import * as publicIds from '../../db/migrations/2026_11_24_0900_add_ledger_public_ids.js';
import { signUpWithKey } from '../fixtures/api-client.js';
import { type TestDatabase, createTestDatabase } from '../helpers/databases.js';
import { describeEachDatabase } from '../helpers/each-database.js';
import { useTestServer } from '../helpers/server.js';

describeEachDatabase('Transaction ids are opaque', (dialect) => {
  const server = useTestServer(dialect);

  it('a new account’s first transaction id says nothing about how many came before', async () => {
    const first = await signUpWithKey(server.api);
    const second = await signUpWithKey(server.api);
    const idOf = async (token: string) =>
      (await server.api.get('/api/v1/billing/transactions', { token })).body.transactions[0].id as string;
    const [a, b] = [await idOf(first.token), await idOf(second.token)];
    for (const id of [a, b]) expect(id).toMatch(/^txn_[0-9A-Za-z]{22}$/);
    const rows = await server.services.db
      .selectFrom('credit_ledger')
      .select(['id', 'public_id'])
      .where('public_id', 'in', [a, b])
      .execute();
    expect(rows).toHaveLength(2);
    for (const row of rows) expect(row.public_id).not.toBe(`txn_${row.id}`);
  });

  describe('the migration', () => {
    let database: TestDatabase;
    let db: Db;
    beforeAll(async () => {
      database = await createTestDatabase(dialect);
      db = openDatabase(database.url).db;
      await migrateToLatest(db);
    });
    afterAll(async () => {
      await db.destroy();
      await database.drop();
    });

    it('gives every existing row its own public id', async () => {
      // As before the migration: an account with 1,202 ledger entries, none with a public id.
      const account = await createAccount(db, {
        email: 'ledger@example.com',
        password: 'correct horse battery',
        now: 0,
      });
      await publicIds.down(db);
      const before = db as unknown as Kysely<any>;
      const rows = Array.from({ length: 1202 }, (_, i) => ({
        account_id: account.id,
        delta: 1,
        reason: 'purchase',
        balance_after: i + 11,
        created_at: i,
      }));
      for (let i = 0; i < rows.length; i += 400)
        await before
          .insertInto('credit_ledger')
          .values(rows.slice(i, i + 400))
          .execute();
      await publicIds.up(db);
      const ids = (await db.selectFrom('credit_ledger').select('public_id').execute()).map((row) => row.public_id);
      expect(ids).toHaveLength(1202);
      expect(new Set(ids).size).toBe(1202);
      for (const id of ids) expect(id).toMatch(/^txn_[0-9a-f]{22}$/);
    });
  });
});
