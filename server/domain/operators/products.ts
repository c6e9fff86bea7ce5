import type { Kysely } from 'kysely';
import type { Database, Product } from '../../../db/schema.js';
import { inTransaction } from '../../../db/transaction.js';
import { AppError } from '../../errors.js';
import { recordAudit } from '../audit/audit.js';
import type { OperatorChange } from '../audit/audit.js';

type Executor = Kysely<Database>;

/** Rejects (never selected again, the owner cannot resume it) or restores an advertiser's product. */
export async function reviewProduct(
  db: Executor,
  input: OperatorChange & { productId: string; decision: 'reject' | 'restore' },
): Promise<Product> {
  return inTransaction(db, async (trx) => {
    const product = await trx
      .selectFrom('products')
      .selectAll()
      .where('id', '=', input.productId)
      .where('account_id', 'is not', null)
      .executeTakeFirst();
    if (!product?.account_id) throw new AppError('not_found', `No advertiser product ${input.productId}.`);
    const status = input.decision === 'reject' ? 'rejected' : 'active';
    if (input.decision === 'restore' && product.status !== 'rejected')
      throw new AppError('conflict', `Product ${input.productId} is not rejected.`);
    await trx.updateTable('products').set({ status }).where('id', '=', product.id).execute();
    await recordAudit(trx, {
      accountId: product.account_id,
      action: input.decision === 'reject' ? 'operator.product_rejected' : 'operator.product_restored',
      origin: input.origin,
      target: product.id,
      details: { reason: input.reason, previous_status: product.status },
      now: input.now,
    });
    return { ...product, status };
  });
}
