import { type CreateTableBuilder, type Kysely, MysqlAdapter, sql } from 'kysely';

/** SQLite needs `integer primary key autoincrement`; MySQL wants a BIGINT auto_increment. The one dialect branch. */
export function withAutoIncrementId<T extends string>(db: Kysely<any>, table: CreateTableBuilder<T, never>) {
  const mysql = db.getExecutor().adapter instanceof MysqlAdapter;
  return mysql
    ? table.addColumn('id', 'bigint', (col) => col.autoIncrement().primaryKey())
    : table.addColumn('id', 'integer', (col) => col.autoIncrement().primaryKey());
}

/** MySQL tables get utf8mb4 whatever the server default is. */
export function tableOptions<T extends string>(db: Kysely<any>, table: CreateTableBuilder<T, any>) {
  const mysql = db.getExecutor().adapter instanceof MysqlAdapter;
  return mysql ? table.modifyEnd(sql.raw('ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin')) : table;
}

/** `DROP INDEX` names its table on MySQL (`… ON t`); SQLite's index names are per schema and take no table. */
export function dropIndex(db: Kysely<any>, index: string, table: string) {
  const mysql = db.getExecutor().adapter instanceof MysqlAdapter;
  const drop = db.schema.dropIndex(index);
  return mysql ? drop.on(table) : drop;
}
