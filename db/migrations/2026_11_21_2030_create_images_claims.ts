import type { Kysely } from 'kysely';
import { tableOptions, withAutoIncrementId } from '../migration-helpers.js';

export async function up(db: Kysely<any>): Promise<void> {
  // A claim groups the images an API key staged until one agent redeems it.
  await tableOptions(
    db,
    db.schema
      .createTable('claims')
      .addColumn('code', 'varchar(16)', (col) => col.primaryKey())
      .addColumn('account_id', 'varchar(40)', (col) => col.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('key_id', 'bigint')
      .addColumn('image_count', 'integer', (col) => col.notNull().defaultTo(0))
      .addColumn('created_at', 'bigint', (col) => col.notNull())
      .addColumn('expires_at', 'bigint', (col) => col.notNull())
      .addColumn('redeemed_by', 'varchar(40)', (col) => col.references('accounts.id').onDelete('set null'))
      .addColumn('redeemed_at', 'bigint'),
  ).execute();
  await db.schema.createIndex('claims_issuer').on('claims').columns(['account_id', 'created_at']).execute();
  await db.schema.createIndex('claims_redeemer').on('claims').columns(['redeemed_by', 'redeemed_at']).execute();

  // Every output image; `storage_name` is the unguessable file name served at /images/<name>.
  await tableOptions(
    db,
    db.schema
      .createTable('images')
      .addColumn('id', 'varchar(40)', (col) => col.primaryKey())
      .addColumn('account_id', 'varchar(40)', (col) => col.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('key_id', 'bigint')
      .addColumn('claim_code', 'varchar(16)', (col) => col.references('claims.code').onDelete('set null'))
      .addColumn('kind', 'varchar(16)', (col) => col.notNull())
      .addColumn('storage_name', 'varchar(128)', (col) => col.notNull().unique())
      .addColumn('content_type', 'varchar(64)', (col) => col.notNull())
      .addColumn('width', 'integer', (col) => col.notNull())
      .addColumn('height', 'integer', (col) => col.notNull())
      .addColumn('style', 'varchar(32)')
      .addColumn('room_type', 'varchar(32)')
      .addColumn('source_image_id', 'varchar(40)')
      .addColumn('created_at', 'bigint', (col) => col.notNull()),
  ).execute();
  await db.schema.createIndex('images_claim_code').on('images').column('claim_code').execute();
  await db.schema.createIndex('images_account').on('images').columns(['account_id', 'created_at']).execute();

  // The sponsored-product catalog; rows are kept in step with server/imaging/catalog-data.ts at start-up.
  await tableOptions(
    db,
    db.schema
      .createTable('products')
      .addColumn('id', 'varchar(64)', (col) => col.primaryKey())
      .addColumn('name', 'varchar(128)', (col) => col.notNull())
      .addColumn('brand', 'varchar(128)', (col) => col.notNull())
      .addColumn('category', 'varchar(32)', (col) => col.notNull())
      .addColumn('asset', 'varchar(128)', (col) => col.notNull())
      .addColumn('revenue_per_mille_cents', 'integer', (col) => col.notNull())
      .addColumn('room_types', 'varchar(255)', (col) => col.notNull())
      .addColumn('active', 'integer', (col) => col.notNull().defaultTo(1)),
  ).execute();

  // One row per product placed in an image; the revenue rate is a snapshot, impressions a plain counter.
  await tableOptions(
    db,
    withAutoIncrementId(db, db.schema.createTable('placements'))
      .addColumn('image_id', 'varchar(40)', (col) => col.notNull().references('images.id').onDelete('cascade'))
      .addColumn('product_id', 'varchar(64)', (col) => col.notNull().references('products.id'))
      .addColumn('x', 'integer', (col) => col.notNull())
      .addColumn('y', 'integer', (col) => col.notNull())
      .addColumn('width', 'integer', (col) => col.notNull())
      .addColumn('height', 'integer', (col) => col.notNull())
      .addColumn('revenue_per_mille_cents', 'integer', (col) => col.notNull())
      .addColumn('impressions', 'bigint', (col) => col.notNull().defaultTo(0))
      .addColumn('created_at', 'bigint', (col) => col.notNull()),
  ).execute();
  await db.schema.createIndex('placements_image_id').on('placements').column('image_id').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['placements', 'products', 'images', 'claims']) await db.schema.dropTable(table).execute();
}
