import { type Kysely, sql } from 'kysely';
import type { Database } from '../../../db/schema.js';
import type { RoomType } from '../../imaging/catalog-data.js';
import type { PlaceableProduct } from '../../imaging/engine.js';
import { utcDay } from './money.js';
import { productRoomTypes, productStyles } from './products.js';

type Executor = Kysely<Database>;

/** A product offered to the engine, with the campaign that pays for it (null: a house product). */
export interface SelectedProduct extends PlaceableProduct {
  campaign_id: string | null;
  cpm_cents: number;
}

export interface ProductSelection {
  /** In order of preference: the engine fills each slot with the first that fits. */
  products: SelectedProduct[];
  byProductId: ReadonlyMap<string, SelectedProduct>;
}

function fits(product: { room_types: string; styles: string }, roomType: RoomType, style: string | null): boolean {
  if (!productRoomTypes(product).includes(roomType)) return false;
  const styles = productStyles(product);
  return style === null || styles.length === 0 || styles.includes(style);
}

/**
 * What place-products offers the engine: paid products whose campaign can pay for an impression now (active, in
 * its dates, total and today's budget and the advertiser's funds left), the highest cpm first and, among equal
 * cpm, the one placed longest ago; then house products, only in categories no paid product fills.
 */
export async function selectProducts(
  db: Executor,
  input: { roomType: RoomType; style: string | null; now: number },
): Promise<ProductSelection> {
  const { now } = input;
  const spentToday = sql<number>`case when campaigns.spend_day = ${utcDay(now)} then campaigns.spent_today_millicents else 0 end`;
  const paidRows = await db
    .selectFrom('campaign_products')
    .innerJoin('campaigns', 'campaigns.id', 'campaign_products.campaign_id')
    .innerJoin('products', 'products.id', 'campaign_products.product_id')
    .innerJoin('accounts', 'accounts.id', 'campaigns.account_id')
    .select([
      'products.id',
      'products.name',
      'products.brand',
      'products.category',
      'products.asset',
      'products.room_types',
      'products.styles',
      'campaigns.id as campaign_id',
      'campaigns.cpm_cents',
    ])
    .where('campaigns.status', '=', 'active')
    .where((eb) => eb.or([eb('campaigns.starts_at', 'is', null), eb('campaigns.starts_at', '<=', now)]))
    .where((eb) => eb.or([eb('campaigns.ends_at', 'is', null), eb('campaigns.ends_at', '>', now)]))
    .where(sql<boolean>`campaigns.spent_millicents + campaigns.cpm_cents <= campaigns.total_budget_millicents`)
    .where(
      sql<boolean>`(campaigns.daily_budget_millicents is null or ${spentToday} + campaigns.cpm_cents <= campaigns.daily_budget_millicents)`,
    )
    .where(sql<boolean>`accounts.ad_funds_millicents >= campaigns.cpm_cents`)
    .where('products.status', '=', 'active')
    .where('products.archived_at', 'is', null)
    .whereRef('products.account_id', '=', 'campaigns.account_id')
    .orderBy('campaigns.cpm_cents', 'desc')
    .orderBy('campaign_products.last_placed_at')
    .orderBy('campaigns.id')
    .execute();
  const chosen = new Map<string, SelectedProduct>();
  for (const row of paidRows) {
    if (chosen.has(row.id) || !fits(row, input.roomType, input.style)) continue;
    chosen.set(row.id, {
      id: row.id,
      name: row.name,
      brand: row.brand,
      category: row.category,
      asset: row.asset,
      campaign_id: row.campaign_id,
      cpm_cents: row.cpm_cents,
    });
  }
  const paidCategories = new Set([...chosen.values()].map((product) => product.category));
  const house = await db
    .selectFrom('products')
    .selectAll()
    .where('account_id', 'is', null)
    .where('active', '=', 1)
    .where('status', '=', 'active')
    .orderBy('revenue_per_mille_cents', 'desc')
    .orderBy('id')
    .execute();
  const products: SelectedProduct[] = [...chosen.values()];
  for (const product of house) {
    if (paidCategories.has(product.category) || !fits(product, input.roomType, input.style)) continue;
    const { id, name, brand, category, asset } = product;
    products.push({ id, name, brand, category, asset, campaign_id: null, cpm_cents: 0 });
  }
  return { products, byProductId: new Map(products.map((product) => [product.id, product])) };
}

/** Rotation among equal cpm: the (campaign, product) pairs just placed go to the back of their tie. */
export async function markPlaced(
  trx: Executor,
  placed: ReadonlyArray<{ campaign_id: string | null; product_id: string }>,
  now: number,
): Promise<void> {
  const pairs = placed
    .filter((p): p is { campaign_id: string; product_id: string } => p.campaign_id !== null)
    .sort((a, b) => `${a.campaign_id}:${a.product_id}`.localeCompare(`${b.campaign_id}:${b.product_id}`));
  for (const pair of pairs)
    await trx
      .updateTable('campaign_products')
      .set({ last_placed_at: now })
      .where('campaign_id', '=', pair.campaign_id)
      .where('product_id', '=', pair.product_id)
      .execute();
}
