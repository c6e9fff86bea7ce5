import type { Kysely } from 'kysely';
import type { Database, Product, ProductStatus } from '../../../db/schema.js';
import { inTransaction } from '../../../db/transaction.js';
import { AppError } from '../../errors.js';
import { newId } from '../../ids.js';
import { prepareProductImage } from '../../imaging/product-image.js';
import { newImageName, type ImageStorage } from '../../storage/storage.js';
import { productRoomTypes, productStyles } from './products.js';
import { type AuditOrigin, recordAudit } from '../audit/audit.js';

type Executor = Kysely<Database>;

export interface ProductView {
  id: string;
  name: string;
  brand: string;
  category: string;
  room_types: string[];
  styles: string[];
  image_url: string | null;
  status: ProductStatus | 'archived';
  created_at: string;
}

export function productView(storage: ImageStorage, product: Product): ProductView {
  return {
    id: product.id,
    name: product.name,
    brand: product.brand,
    category: product.category,
    room_types: productRoomTypes(product),
    styles: productStyles(product),
    image_url: product.image_storage_name ? storage.url(product.image_storage_name) : null,
    status: product.archived_at !== null ? 'archived' : product.status,
    created_at: new Date(product.created_at).toISOString(),
  };
}

const NOT_FOUND = (id: string) => new AppError('not_found', `No product ${id} in this account.`);

/** An advertiser's own product; another account's (or a house product) is not found, never revealed. */
export async function findOwnProduct(db: Executor, accountId: string, id: string): Promise<Product> {
  const product = await db
    .selectFrom('products')
    .selectAll()
    .where('id', '=', id)
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  if (!product) throw NOT_FOUND(id);
  return product;
}

export interface NewProduct {
  image: Buffer;
  name: string;
  brand: string;
  category: string;
  roomTypes: readonly string[];
  styles: readonly string[];
}

/** Checks and re-encodes the picture, stores it, then records the product (the file goes again if that fails). */
export async function createProduct(
  deps: { db: Executor; storage: ImageStorage; now: number; origin: AuditOrigin },
  accountId: string,
  input: NewProduct,
): Promise<ProductView> {
  const picture = await prepareProductImage(input.image);
  const storageName = newImageName(newId('image'), 'png');
  await deps.storage.put(storageName, picture.data, 'image/png');
  const row = {
    id: newId('product'),
    account_id: accountId,
    name: input.name,
    brand: input.brand,
    category: input.category,
    asset: storageName,
    image_storage_name: storageName,
    revenue_per_mille_cents: 0,
    room_types: [...new Set(input.roomTypes)].join(','),
    styles: [...new Set(input.styles)].join(','),
    active: 1 as const,
    status: 'active' as const,
    created_at: deps.now,
  };
  try {
    await inTransaction(deps.db, async (trx) => {
      await trx.insertInto('products').values(row).execute();
      await recordAudit(trx, {
        accountId,
        action: 'ads.product_created',
        origin: deps.origin,
        target: row.id,
        details: { name: row.name, brand: row.brand, category: row.category },
        now: deps.now,
      });
    });
  } catch (error) {
    await deps.storage.delete(storageName).catch(() => undefined);
    throw error;
  }
  return productView(deps.storage, await findOwnProduct(deps.db, accountId, row.id));
}

export async function listProducts(db: Executor, storage: ImageStorage, accountId: string): Promise<ProductView[]> {
  const rows = await db
    .selectFrom('products')
    .selectAll()
    .where('account_id', '=', accountId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
  return rows.map((row) => productView(storage, row));
}

export async function updateProduct(
  db: Executor,
  storage: ImageStorage,
  accountId: string,
  id: string,
  changes: { name?: string; brand?: string; room_types?: string[]; styles?: string[]; status?: 'active' | 'paused' },
): Promise<ProductView> {
  const product = await findOwnProduct(db, accountId, id);
  if (product.archived_at !== null) throw new AppError('conflict', `Product ${id} is archived and cannot change.`);
  if (changes.status && product.status === 'rejected')
    throw new AppError('conflict', `Product ${id} was rejected by Roomstage; its status cannot change.`);
  const set = {
    ...(changes.name !== undefined && { name: changes.name }),
    ...(changes.brand !== undefined && { brand: changes.brand }),
    ...(changes.room_types !== undefined && { room_types: [...new Set(changes.room_types)].join(',') }),
    ...(changes.styles !== undefined && { styles: [...new Set(changes.styles)].join(',') }),
    ...(changes.status !== undefined && { status: changes.status }),
  };
  if (Object.keys(set).length > 0)
    await db.updateTable('products').set(set).where('id', '=', id).where('account_id', '=', accountId).execute();
  return productView(storage, await findOwnProduct(db, accountId, id));
}

/** DELETE archives: the product is never selected again, and the images that show it keep their history. */
export async function archiveProduct(
  db: Executor,
  storage: ImageStorage,
  accountId: string,
  id: string,
  now: number,
): Promise<ProductView> {
  await findOwnProduct(db, accountId, id);
  await db
    .updateTable('products')
    .set({ archived_at: now })
    .where('id', '=', id)
    .where('account_id', '=', accountId)
    .where('archived_at', 'is', null)
    .execute();
  return productView(storage, await findOwnProduct(db, accountId, id));
}

/** Whether a stored file is an advertiser's product picture (served like images, without counting impressions). */
export async function isProductImage(db: Executor, storageName: string): Promise<boolean> {
  const row = await db
    .selectFrom('products')
    .select('id')
    .where('image_storage_name', '=', storageName)
    .executeTakeFirst();
  return row !== undefined;
}
