import { type Db, isMysql } from '../../../db/client.js';
import { afterCommit, inTransaction } from '../../../db/transaction.js';
import { type AuditOrigin, recordAudit } from '../audit/audit.js';
import type { DeliveryStatus, Webhook } from '../../../db/schema.js';
import { AppError } from '../../errors.js';
import { assertPublicUrl, type NetworkPolicy } from '../../outbound/network-guard.js';
import { generateWebhookSecret, ROTATION_OVERLAP_MS } from './signing.js';
import { getOwnApiKey } from '../keys/api-keys.js';
import { OUTBOX_WAKE, outboxSignal } from '../events/outbox.js';

/** The webhook of one of the account's keys, or null while it was never configured. 404 for another account's key. */
export async function getWebhook(
  db: Db,
  accountId: string,
  keyId: number,
): Promise<{ keyId: number; webhook: Webhook | null }> {
  await getOwnApiKey(db, accountId, keyId);
  const webhook = await db.selectFrom('webhooks').selectAll().where('key_id', '=', keyId).executeTakeFirst();
  return { keyId, webhook: webhook ?? null };
}

/** Requires a configured url: the actions that send or sign need somewhere to send to. */
export async function getConfiguredWebhook(
  db: Db,
  accountId: string,
  keyId: number,
): Promise<Webhook & { url: string; secret: string }> {
  const { webhook } = await getWebhook(db, accountId, keyId);
  if (!webhook?.url || !webhook.secret) {
    throw new AppError(
      'webhook_not_configured',
      `API key ${keyId} has no webhook url yet. Set one with PUT /api/v1/keys/${keyId}/webhook first.`,
    );
  }
  return webhook as Webhook & { url: string; secret: string };
}

/**
 * Creates the webhook (and its secret) at the first call; later calls change url and enabled and keep the secret.
 * Saving clears the reason Roomstage gave for switching it off: the owner has seen it and decided.
 */
export async function upsertWebhook(
  db: Db,
  input: {
    accountId: string;
    keyId: number;
    url: string;
    enabled: boolean;
    now: number;
    policy: NetworkPolicy;
    origin: AuditOrigin;
  },
): Promise<Webhook> {
  await getOwnApiKey(db, input.accountId, input.keyId);
  const url = (await assertPublicUrl(input.url, input.policy)).toString();
  const enabled = input.enabled ? 1 : 0;
  return inTransaction(db, async (trx) => {
    let lookup = trx.selectFrom('webhooks').select('key_id').where('key_id', '=', input.keyId);
    // Two first PUTs at once: the key row lock makes the second wait and then update (SQLite has one writer).
    if (isMysql(trx)) {
      await trx.selectFrom('api_keys').select('id').where('id', '=', input.keyId).forUpdate().execute();
      lookup = lookup.forUpdate();
    }
    const existing = await lookup.executeTakeFirst();
    if (existing) {
      await trx
        .updateTable('webhooks')
        .set({ url, enabled, disabled_reason: null, updated_at: input.now })
        .where('key_id', '=', input.keyId)
        .execute();
    } else {
      await trx
        .insertInto('webhooks')
        .values({
          key_id: input.keyId,
          account_id: input.accountId,
          url,
          enabled,
          secret: generateWebhookSecret(),
          created_at: input.now,
          updated_at: input.now,
        })
        .execute();
    }
    await recordAudit(trx, {
      accountId: input.accountId,
      action: 'webhook.updated',
      origin: input.origin,
      target: `key_${input.keyId}`,
      details: { url, enabled: input.enabled },
      now: input.now,
    });
    return trx.selectFrom('webhooks').selectAll().where('key_id', '=', input.keyId).executeTakeFirstOrThrow();
  });
}

/**
 * A new secret signs every attempt from now on, retries of older events included; for 24 h the replaced one signs
 * too (a second `webhook-signature` entry), so receivers can switch over without dropping deliveries.
 */
export async function rotateWebhookSecret(
  db: Db,
  input: { accountId: string; keyId: number; now: number; origin: AuditOrigin },
): Promise<Webhook> {
  await getConfiguredWebhook(db, input.accountId, input.keyId);
  await inTransaction(db, async (trx) => {
    await trx
      .updateTable('webhooks')
      .set((eb) => ({
        previous_secret: eb.ref('secret'),
        previous_secret_expires_at: input.now + ROTATION_OVERLAP_MS,
        secret: generateWebhookSecret(),
        updated_at: input.now,
      }))
      .where('key_id', '=', input.keyId)
      .execute();
    await recordAudit(trx, {
      accountId: input.accountId,
      action: 'webhook.secret_rotated',
      origin: input.origin,
      target: `key_${input.keyId}`,
      now: input.now,
    });
  });
  return db.selectFrom('webhooks').selectAll().where('key_id', '=', input.keyId).executeTakeFirstOrThrow();
}

export interface DeliveryView {
  id: string;
  event_id: string;
  event: string;
  status: DeliveryStatus;
  attempts: number;
  last_status_code: number | null;
  last_error: string | null;
  next_attempt_at: number | null;
  delivered_at: number | null;
  created_at: number;
}

function deliveriesQuery(db: Db) {
  return db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhook_events as e', 'e.id', 'd.event_id')
    .select([
      'd.id',
      'd.event_id',
      'e.event',
      'd.status',
      'd.attempts',
      'd.last_status_code',
      'd.last_error',
      'd.next_attempt_at',
      'd.delivered_at',
      'd.created_at',
    ]);
}

/** Newest first. */
export async function listDeliveries(
  db: Db,
  input: { accountId: string; keyId: number; limit: number },
): Promise<DeliveryView[]> {
  await getOwnApiKey(db, input.accountId, input.keyId);
  return deliveriesQuery(db)
    .where('d.key_id', '=', input.keyId)
    .orderBy('d.created_at', 'desc')
    .orderBy('d.id', 'desc')
    .limit(input.limit)
    .execute();
}

async function getOwnDelivery(db: Db, keyId: number, deliveryId: string): Promise<DeliveryView> {
  const delivery = await deliveriesQuery(db)
    .where('d.id', '=', deliveryId)
    .where('d.key_id', '=', keyId)
    .executeTakeFirst();
  if (!delivery) throw new AppError('not_found', `No delivery ${deliveryId} for API key ${keyId}.`);
  return delivery;
}

/**
 * Queues a delivery again for one more attempt now, whatever its state (a resend of a delivered one included).
 * An attempt in flight is left alone: it is already being sent.
 */
export async function retryDelivery(
  db: Db,
  input: { accountId: string; keyId: number; deliveryId: string; now: number },
): Promise<DeliveryView> {
  const webhook = await getConfiguredWebhook(db, input.accountId, input.keyId);
  const delivery = await getOwnDelivery(db, input.keyId, input.deliveryId);
  if (!webhook.enabled && delivery.event !== 'test.ping') {
    throw new AppError('conflict', 'The webhook is disabled. Enable it before resending deliveries.');
  }
  await inTransaction(db, async (trx) => {
    await trx
      .updateTable('webhook_deliveries')
      .set({ status: 'pending', next_attempt_at: input.now, last_error: null })
      .where('id', '=', input.deliveryId)
      .where((eb) =>
        eb.or([eb('status', '!=', 'pending'), eb('locked_until', 'is', null), eb('locked_until', '<=', input.now)]),
      )
      .execute();
    afterCommit(trx, () => outboxSignal.emit(OUTBOX_WAKE));
  });
  return getOwnDelivery(db, input.keyId, input.deliveryId);
}
