import type { Kysely } from 'kysely';
import { tableOptions, withAutoIncrementId } from '../migration-helpers.js';

// E-mail goes through a durable outbox; the security state of whoever signs in lives in tables of its own, keyed by
// `user_id` (the account id until accounts and users are separated), so that change only moves the key.
export async function up(db: Kysely<any>): Promise<void> {
  await tableOptions(
    db,
    db.schema
      .createTable('mail_outbox')
      .addColumn('id', 'varchar(40)', (col) => col.primaryKey())
      .addColumn('to_address', 'varchar(254)', (col) => col.notNull())
      .addColumn('kind', 'varchar(40)', (col) => col.notNull())
      .addColumn('subject', 'varchar(255)', (col) => col.notNull())
      .addColumn('text_body', 'text', (col) => col.notNull())
      .addColumn('html_body', 'text', (col) => col.notNull())
      .addColumn('link', 'varchar(1024)')
      .addColumn('status', 'varchar(16)', (col) => col.notNull())
      .addColumn('attempts', 'integer', (col) => col.notNull().defaultTo(0))
      .addColumn('next_attempt_at', 'bigint')
      .addColumn('locked_until', 'bigint')
      .addColumn('last_error', 'varchar(1024)')
      .addColumn('sent_at', 'bigint')
      .addColumn('created_at', 'bigint', (col) => col.notNull()),
  ).execute();
  await db.schema.createIndex('mail_outbox_due').on('mail_outbox').columns(['status', 'next_attempt_at']).execute();
  await db.schema.createIndex('mail_outbox_to').on('mail_outbox').columns(['to_address', 'created_at']).execute();

  await tableOptions(
    db,
    db.schema
      .createTable('user_security')
      .addColumn('user_id', 'varchar(40)', (col) => col.primaryKey().references('accounts.id').onDelete('cascade'))
      .addColumn('email_verified_at', 'bigint')
      .addColumn('totp_secret', 'varchar(64)')
      .addColumn('totp_pending_secret', 'varchar(64)')
      .addColumn('totp_enabled_at', 'bigint')
      .addColumn('totp_last_step', 'bigint'),
  ).execute();
  // Every existing account gets its row (unverified, two-factor off): the code reads it without a fallback.
  await db
    .insertInto('user_security')
    .columns(['user_id'])
    .expression(db.selectFrom('accounts').select('id'))
    .execute();

  await tableOptions(
    db,
    db.schema
      .createTable('user_tokens')
      .addColumn('token_hash', 'char(64)', (col) => col.primaryKey())
      .addColumn('user_id', 'varchar(40)', (col) => col.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('purpose', 'varchar(32)', (col) => col.notNull())
      .addColumn('email', 'varchar(254)', (col) => col.notNull())
      .addColumn('expires_at', 'bigint', (col) => col.notNull())
      .addColumn('used_at', 'bigint')
      .addColumn('created_at', 'bigint', (col) => col.notNull()),
  ).execute();
  await db.schema.createIndex('user_tokens_user').on('user_tokens').columns(['user_id', 'purpose']).execute();

  await tableOptions(
    db,
    db.schema
      .createTable('recovery_codes')
      .addColumn('user_id', 'varchar(40)', (col) => col.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('code_hash', 'char(64)', (col) => col.notNull())
      .addColumn('used_at', 'bigint')
      .addPrimaryKeyConstraint('recovery_codes_pk', ['user_id', 'code_hash']),
  ).execute();

  await tableOptions(
    db,
    withAutoIncrementId(db, db.schema.createTable('audit_log'))
      .addColumn('public_id', 'varchar(40)', (col) => col.notNull().unique())
      .addColumn('account_id', 'varchar(40)', (col) => col.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('action', 'varchar(64)', (col) => col.notNull())
      .addColumn('actor_type', 'varchar(16)', (col) => col.notNull())
      .addColumn('actor_id', 'varchar(64)', (col) => col.notNull())
      .addColumn('actor_label', 'varchar(254)', (col) => col.notNull())
      .addColumn('ip', 'varchar(64)')
      .addColumn('user_agent', 'varchar(512)')
      .addColumn('target', 'varchar(128)')
      .addColumn('details', 'text', (col) => col.notNull())
      .addColumn('created_at', 'bigint', (col) => col.notNull()),
  ).execute();
  await db.schema.createIndex('audit_log_account').on('audit_log').columns(['account_id', 'id']).execute();
  await db.schema.createIndex('audit_log_created').on('audit_log').columns(['created_at']).execute();

  await db.schema.alterTable('sessions').addColumn('created_at', 'bigint').execute();
  await db.schema.alterTable('sessions').addColumn('last_seen_at', 'bigint').execute();
  await db.schema.alterTable('sessions').addColumn('ip', 'varchar(64)').execute();
  await db.schema.alterTable('sessions').addColumn('user_agent', 'varchar(512)').execute();

  await db.schema.alterTable('api_keys').addColumn('scopes', 'varchar(255)').execute();
  await db.schema.alterTable('api_keys').addColumn('expires_at', 'bigint').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('api_keys').dropColumn('expires_at').execute();
  await db.schema.alterTable('api_keys').dropColumn('scopes').execute();
  for (const column of ['user_agent', 'ip', 'last_seen_at', 'created_at'])
    await db.schema.alterTable('sessions').dropColumn(column).execute();
  for (const table of ['audit_log', 'recovery_codes', 'user_tokens', 'user_security', 'mail_outbox'])
    await db.schema.dropTable(table).execute();
}
