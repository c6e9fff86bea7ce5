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

