import { type Kysely, sql } from 'kysely';
import { dropIndex, tableOptions } from '../migration-helpers.js';

// Users and accounts part: a user (e-mail, password) is a member of one or more accounts, each membership with a role.
// Every existing account row was one person: that person becomes a user with the same id, the owner of the account
// (their personal account keeps its id, so every client keeps working). `accounts.email` stays as the account's
// contact address (receipts, payouts); the password moves to the user. A session gains its user and keeps
// `account_id` as the account it currently acts on.
export async function up(db: Kysely<any>): Promise<void> {
  await tableOptions(
    db,
    db.schema
      .createTable('users')
      .addColumn('id', 'varchar(40)', (col) => col.primaryKey())
      .addColumn('email', 'varchar(254)', (col) => col.notNull().unique())
      .addColumn('password_hash', 'varchar(255)', (col) => col.notNull())
      .addColumn('created_at', 'bigint', (col) => col.notNull()),
  ).execute();
  await db
    .insertInto('users')
    .columns(['id', 'email', 'password_hash', 'created_at'])
    .expression(db.selectFrom('accounts').select(['id', 'email', 'password_hash', 'created_at']))
    .execute();

  await tableOptions(
    db,
    db.schema
      .createTable('memberships')
      .addColumn('account_id', 'varchar(40)', (col) => col.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('user_id', 'varchar(40)', (col) => col.notNull().references('users.id').onDelete('cascade'))
      .addColumn('role', 'varchar(16)', (col) => col.notNull())
      .addColumn('created_at', 'bigint', (col) => col.notNull())
      .addPrimaryKeyConstraint('memberships_pk', ['account_id', 'user_id']),
  ).execute();
  await db.schema.createIndex('memberships_user').on('memberships').columns(['user_id', 'account_id']).execute();
  await db
    .insertInto('memberships')
    .columns(['account_id', 'user_id', 'role', 'created_at'])
    .expression(db.selectFrom('accounts').select(['id', 'id', sql.lit('owner').as('role'), 'created_at']))
    .execute();

  await tableOptions(
    db,
    db.schema
      .createTable('invites')
      .addColumn('id', 'varchar(40)', (col) => col.primaryKey())
      .addColumn('account_id', 'varchar(40)', (col) => col.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('email', 'varchar(254)', (col) => col.notNull())
      .addColumn('role', 'varchar(16)', (col) => col.notNull())
      .addColumn('token_hash', 'char(64)', (col) => col.notNull().unique())
      .addColumn('invited_by', 'varchar(40)', (col) => col.notNull())
      .addColumn('created_at', 'bigint', (col) => col.notNull())
      .addColumn('expires_at', 'bigint', (col) => col.notNull())
      .addColumn('accepted_at', 'bigint')
      .addColumn('accepted_by', 'varchar(40)')
      .addColumn('revoked_at', 'bigint'),
  ).execute();
  await db.schema.createIndex('invites_account').on('invites').columns(['account_id', 'created_at']).execute();

  await db.schema.alterTable('accounts').addColumn('name', 'varchar(254)').execute();
  await db.updateTable('accounts').set({ name: sql`email` }).execute();
  await db.schema.alterTable('accounts').dropColumn('password_hash').execute();

  await db.schema.alterTable('sessions').addColumn('user_id', 'varchar(40)').execute();
  await db.updateTable('sessions').set({ user_id: sql`account_id` }).execute();
  await db.schema.createIndex('sessions_user').on('sessions').columns(['user_id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await dropIndex(db, 'sessions_user', 'sessions').execute();
  // A session acting on another account goes back to its user's own.
  await db.updateTable('sessions').set({ account_id: sql`user_id` }).execute();
  await db.schema.alterTable('sessions').dropColumn('user_id').execute();
  await db.schema
    .alterTable('accounts')
    .addColumn('password_hash', 'varchar(255)', (col) => col.notNull().defaultTo(''))
    .execute();
  await db
    .updateTable('accounts')
    .set({ password_hash: sql`(select users.password_hash from users where users.id = accounts.id)` })
    .execute();
  await db.schema.alterTable('accounts').dropColumn('name').execute();
  await db.schema.dropTable('invites').execute();
  await db.schema.dropTable('memberships').execute();
  await db.schema.dropTable('users').execute();
}
