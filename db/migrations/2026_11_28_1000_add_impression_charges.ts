import type { Kysely } from 'kysely';
import { tableOptions, withAutoIncrementId } from '../migration-helpers.js';

/*
 * Invalid traffic. Every billed impression of a paid placement is kept as one charge row: which campaign, day and
 * (keyed hash of the) client address it came from, what it cost and how it was split. An operator who declares a
 * campaign's traffic of a day (or of one address) invalid finds exactly those rows, refunds them and takes the
 * agent's share back; and an agent's earnings of the last EARNINGS_HOLD are the charges counted since then.
 * `invalid_impressions` keeps what was taken back apart in every report. `server_secrets` holds the key that hashes
 * addresses, made once and shared by every node through the database.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await tableOptions(
    db,
    withAutoIncrementId(db, db.schema.createTable('impression_charges'))
      .addColumn('campaign_id', 'varchar(64)', (col) => col.notNull())
      .addColumn('advertiser_id', 'varchar(64)', (col) => col.notNull())
      .addColumn('placement_id', 'bigint', (col) => col.notNull())
      .addColumn('image_id', 'varchar(64)', (col) => col.notNull())
      .addColumn('agent_id', 'varchar(64)')
      .addColumn('day', 'integer', (col) => col.notNull())
      .addColumn('address', 'varchar(64)', (col) => col.notNull())
      .addColumn('cost_millicents', 'bigint', (col) => col.notNull())
      .addColumn('agent_millicents', 'bigint', (col) => col.notNull())
      .addColumn('service_millicents', 'bigint', (col) => col.notNull())
      .addColumn('counted_at', 'bigint', (col) => col.notNull())
      .addColumn('invalid_traffic_id', 'varchar(64)'),
  ).execute();
  await db.schema
    .createIndex('impression_charges_campaign_day')
    .on('impression_charges')
    .columns(['campaign_id', 'day', 'address'])
    .execute();
  await db.schema
    .createIndex('impression_charges_agent_counted')
    .on('impression_charges')
    .columns(['agent_id', 'counted_at'])
    .execute();
  for (const table of ['campaigns', 'campaign_daily', 'earnings_daily', 'placements']) {
    await db.schema
      .alterTable(table)
      .addColumn('invalid_impressions', 'bigint', (col) => col.notNull().defaultTo(0))
      .execute();
  }
  // Who opened a checkout: the purchase's audit entry names them when the payment completes (maybe by a Stripe event).
  await db.schema.alterTable('checkout_sessions').addColumn('buyer_id', 'varchar(64)').execute();
  await tableOptions(
    db,
    db.schema
      .createTable('server_secrets')
      .addColumn('name', 'varchar(64)', (col) => col.primaryKey())
      .addColumn('value', 'varchar(128)', (col) => col.notNull())
      .addColumn('created_at', 'bigint', (col) => col.notNull()),
  ).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('server_secrets').execute();
  await db.schema.alterTable('checkout_sessions').dropColumn('buyer_id').execute();
  for (const table of ['campaigns', 'campaign_daily', 'earnings_daily', 'placements'])
    await db.schema.alterTable(table).dropColumn('invalid_impressions').execute();
  await db.schema.dropTable('impression_charges').execute();
}
