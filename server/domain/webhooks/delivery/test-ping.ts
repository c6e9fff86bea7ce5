import type { Db } from '../../../../db/client.js';
import { inTransaction } from '../../../../db/transaction.js';
import type { NetworkPolicy } from '../../../outbound/network-guard.js';
import { deliverOnce } from './deliver.js';
import { recordAttempt } from './record.js';
import { writeEvent } from '../../events/outbox.js';
import { getConfiguredWebhook } from '../webhooks.js';

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
  input: { accountId: string; keyId: number; now: () => number; policy: NetworkPolicy; timeoutMs?: number },
): Promise<TestPingResult> {
  const webhook = await getConfiguredWebhook(db, input.accountId, input.keyId);
  const created = input.now();
  const leaseUntil = created + PING_LEASE_MS;
  const ping = await inTransaction(db, (trx) =>
    writeEvent(trx, {
      accountId: input.accountId,
      keyId: input.keyId,
      event: 'test.ping',
      data: { key_id: input.keyId, message: 'This is a test event from Roomstage.' },
      now: created,
      targetKeyIds: [input.keyId],
      leasedUntil: leaseUntil,
    }),
  );
  const [deliveryId] = ping.deliveryIds;
  if (deliveryId === undefined) throw new Error('A test ping targets one key, so it has one delivery');
  const delivery = { id: deliveryId, keyId: input.keyId, attempts: 0, leaseUntil };
  const result = await deliverOnce(
    { url: webhook.url, secrets: webhook, eventId: ping.eventId, event: 'test.ping', payload: ping.payload },
    { allowPrivateNetwork: input.policy.allowPrivateNetwork, timeoutMs: input.timeoutMs, now: input.now },
  );
  await recordAttempt(db, delivery, result, input.now(), { retryDelaysMs: [], final: true });
  return {
    delivered: result.delivered,
    status_code: result.statusCode,
    duration_ms: result.durationMs,
    event_id: ping.eventId,
    ...(result.error !== null ? { error: result.error } : {}),
  };
}
