import { type Kysely, sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type DatabaseHandle, openDatabase } from '../../db/client.js';

/** The prepared statements db/client.ts keeps for SQLite: kept ones must answer exactly what fresh ones would. */
describe('SQLite prepared statements kept across queries', () => {
  let handle: DatabaseHandle;
  let db: Kysely<any>;

  beforeEach(async () => {
    handle = openDatabase('sqlite::memory:');
    db = handle.db as unknown as Kysely<any>;
    await sql`create table things (id integer primary key, name text not null)`.execute(db);
    await db
      .insertInto('things')
      .values([1, 2, 3, 4].map((id) => ({ id, name: `thing ${id}` })))
      .execute();
  });
  afterEach(() => handle.close());

  const byName = (name: string) => db.selectFrom('things').select('id').where('name', '=', name);

  it('binds each run its own parameters', async () => {
    expect(await byName('thing 2').execute()).toEqual([{ id: 2 }]);
    expect(await byName('thing 3').execute()).toEqual([{ id: 3 }]);
    expect(await byName('nothing').execute()).toEqual([]);
  });

  it('runs a statement again after a stream of it was left part-way', async () => {
    const all = db.selectFrom('things').select(['id']).orderBy('id');
    await all.execute(); // kept from here on
    for await (const row of all.stream()) {
      expect(row).toEqual({ id: 1 });
      break;
    }
    expect(await all.execute()).toEqual([{ id: 1 }, { id: 2 }, { id: 3 }, { id: 4 }]);
    const streamed: number[] = [];
    for await (const row of all.stream()) streamed.push(row.id);
    expect(streamed).toEqual([1, 2, 3, 4]);
  });

  it('answers with the schema as it is now after a kept statement’s table changed', async () => {
    const star = db.selectFrom('things').selectAll().where('id', '=', 1);
    expect(await star.execute()).toEqual([{ id: 1, name: 'thing 1' }]);
    await sql`alter table things add column colour text not null default 'blue'`.execute(db);
    expect(await star.execute()).toEqual([{ id: 1, name: 'thing 1', colour: 'blue' }]);
  });

  it('writes through a kept statement as often as it runs', async () => {
    const rename = (id: number, name: string) => db.updateTable('things').set({ name }).where('id', '=', id);
    for (const id of [1, 2, 3]) {
      const result = await rename(id, 'renamed').executeTakeFirst();
      expect(result.numUpdatedRows).toBe(1n);
    }
    expect(await byName('renamed').execute()).toEqual([{ id: 1 }, { id: 2 }, { id: 3 }]);
  });
});
