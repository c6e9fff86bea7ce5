import type { Kysely } from 'kysely';
import type { Db } from '../../../db/client.js';
import { inTransaction } from '../../../db/transaction.js';
import { type AuditOrigin, recordAudit } from '../audit/audit.js';
import type { Database } from '../../../db/schema.js';
import { log } from '../../observability/logger.js';
import type { PaymentGateway, SavedCard } from './gateway.js';

/** The card fields of an account row, all cleared together. */
const NO_CARD = {
  payment_method_id: null,
  payment_method_brand: null,
  payment_method_last4: null,
  payment_method_exp_month: null,
  payment_method_exp_year: null,
  payment_method_simulated: null,
} as const;

/** Keeps `card` as the account's card on file; a new card ends an auto top-up pause. */
export async function saveCard(trx: Kysely<Database>, accountId: string, card: SavedCard): Promise<void> {
  await trx
    .updateTable('accounts')
    .set({
      payment_method_id: card.paymentMethodId,
      payment_method_brand: card.brand,
      payment_method_last4: card.last4,
      payment_method_exp_month: card.expMonth,
      payment_method_exp_year: card.expYear,
      payment_method_simulated: card.simulated ? 1 : 0,
      auto_topup_paused_until: null,
      auto_topup_consecutive_failures: 0,
      auto_topup_last_failure_reason: null,
    })
    .where('id', '=', accountId)
    .execute();
}

/** Refreshes the details Stripe reports for a card (a new expiry, say) if it is some account's card on file. */
export async function refreshCard(trx: Kysely<Database>, card: SavedCard): Promise<void> {
  await trx
    .updateTable('accounts')
    .set({
      payment_method_brand: card.brand,
      payment_method_last4: card.last4,
      payment_method_exp_month: card.expMonth,
      payment_method_exp_year: card.expYear,
    })
    .where('payment_method_id', '=', card.paymentMethodId)
    .execute();
}

/** Forgets the card wherever it is on file; auto top-up goes off with it (it could charge nothing). */
export async function forgetCard(
  trx: Kysely<Database>,
  where: { accountId: string } | { paymentMethodId: string },
): Promise<void> {
  let update = trx.updateTable('accounts').set({ ...NO_CARD, auto_topup_enabled: 0 });
  update =
    'accountId' in where
      ? update.where('id', '=', where.accountId)
      : update.where('payment_method_id', '=', where.paymentMethodId);
  await update.execute();
}

/**
 * DELETE /billing/payment-method: the card is detached at Stripe (so it can never be charged again) and forgotten
 * here. A detach that fails at Stripe is logged; the card is forgotten anyway, so Roomstage never charges it.
 */
export async function removePaymentMethod(
  db: Db,
  gateway: PaymentGateway,
  accountId: string,
  origin: AuditOrigin,
  now: number,
): Promise<void> {
  const account = await db
    .selectFrom('accounts')
    .select(['payment_method_id', 'payment_method_simulated', 'payment_method_last4'])
    .where('id', '=', accountId)
    .executeTakeFirst();
  await inTransaction(db, async (trx) => {
    await forgetCard(trx, { accountId });
    if (account?.payment_method_id)
      await recordAudit(trx, {
        accountId,
        action: 'billing.payment_method_removed',
        origin,
        target: account.payment_method_id,
        details: { last4: account.payment_method_last4 },
        now,
      });
  });
  const methodId = account?.payment_method_id;
  if (methodId && account.payment_method_simulated !== 1) {
    await gateway
      .detachPaymentMethod(methodId)
      .catch((error: unknown) =>
        log.warn({ err: error, accountId }, 'the card could not be detached at Stripe; it is forgotten here'),
      );
  }
}
