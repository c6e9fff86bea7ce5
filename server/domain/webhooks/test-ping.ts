import type { Db } from '../../../db/client.js';
import { inTransaction } from '../../../db/transaction.js';
import { iso } from '../../clock.js';
import type { NetworkPolicy } from '../../http/network-guard.js';
import { newId } from '../../ids.js';
import { deliverOnce } from '../../webhooks/deliver.js';
import { recordAttempt } from '../../webhooks/record.js';
import type { Envelope } from '../events/outbox.js';
import { getConfiguredWebhook } from './webhooks.js';

export interface TestPingResult {
  delivered: boolean;
  status_code: number | null;
  duration_ms: number;
  event_id: string;
  error?: string;
}

/** Lease held by the synchronous attempt so the worker leaves the row alone meanwhile. */
const PING_LEASE_MS = 60_000;

/**
 * One real, signed `test.ping` delivery, sent now (also while the webhook is disabled) and logged like any other
 * delivery. It is not retried by itself: the result is shown to the person who asked, who can resend it.
 */
export async function sendTestPing(
  db: Db,
  input: { accountId: string; keyId: number; now: () => number; policy: NetworkPolicy; timeoutMs?: number }
): Promise<TestPingResult> {
  const webhook = await getConfiguredWebhook(db, input.accountId, input.keyId);
  const created = input.now();
  const envelope: Envelope<'test.ping'> = {
    id: newId('event'),
    event: 'test.ping',
    timestamp: iso(created),
    data: { key_id: input.keyId, message: 'This is a test event from Roomstage.' },
  };
  const payload = JSON.stringify(envelope);
  const delivery = { id: newId('delivery'), keyId: input.keyId, attempts: 0, leaseUntil: created + PING_LEASE_MS };
  await inTransaction(db, async (trx) => {
    await trx
      .insertInto('webhook_events')
      .values({ id: envelope.id, account_id: input.accountId, key_id: input.keyId, event: envelope.event, payload, created_at: created })
      .execute();
    await trx
      .insertInto('webhook_deliveries')
      .values({
        id: delivery.id,
        event_id: envelope.id,
        key_id: input.keyId,
        status: 'pending',
        attempts: 0,
        next_attempt_at: created,
        locked_until: delivery.leaseUntil,
        last_status_code: null,
        last_error: null,
        delivered_at: null,
        created_at: created,
      })
      .execute();
  });
  const result = await deliverOnce(
    { url: webhook.url, secret: webhook.secret, eventId: envelope.id, event: envelope.event, payload },
    { allowPrivateNetwork: input.policy.allowPrivateNetwork, timeoutMs: input.timeoutMs, now: input.now }
  );
  await recordAttempt(db, delivery, result, input.now(), { retryDelaysMs: [], final: true });
  return {
    delivered: result.delivered,
    status_code: result.statusCode,
    duration_ms: result.durationMs,
    event_id: envelope.id,
    ...(result.error !== null ? { error: result.error } : {}),
  };
}
