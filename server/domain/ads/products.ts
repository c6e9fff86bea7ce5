import type { Kysely } from 'kysely';
import { isMysql } from '../../../db/client.js';
import type { Database, Product } from '../../../db/schema.js';
import type { SponsoredProduct } from '../../imaging/catalog-data.js';

type Executor = Kysely<Database>;

/**
 * Keeps the `products` table in step with the catalog in code: inserts new products and updates changed ones,
 * idempotently (safe when several processes start at once). Products dropped from the catalog are deactivated,
 * never deleted, because placements keep referring to them.
 */
export async function syncProductCatalog(db: Executor, catalog: readonly SponsoredProduct[]): Promise<void> {
  for (const product of catalog) {
    const row = {
      id: product.id,
      name: product.name,
      brand: product.brand,
      category: product.category,
      asset: product.asset,
      revenue_per_mille_cents: product.revenue_per_mille_cents,
      room_types: product.room_types.join(','),
      active: 1 as const,
    };
    const { id: _id, ...changes } = row;
    const insert = db.insertInto('products').values(row);
    await (isMysql(db)
      ? insert.onDuplicateKeyUpdate(changes)
      : insert.onConflict((oc) => oc.column('id').doUpdateSet(changes))
    ).execute();
  }
  const known = catalog.map((product) => product.id);
  if (known.length > 0)
    await db
      .updateTable('products')
      .set({ active: 0 })
      .where('account_id', 'is', null)
      .where('id', 'not in', known)
      .execute();
}

export function productRoomTypes(product: Pick<Product, 'room_types'>): string[] {
  return product.room_types.split(',').filter(Boolean);
}

/** Empty: the product suits any style. */
export function productStyles(product: Pick<Product, 'styles'>): string[] {
  return product.styles.split(',').filter(Boolean);
}
