import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Db } from '../../db/client.js';
import { inTransaction } from '../../db/transaction.js';
import { emitEvent } from '../../server/domain/events/outbox.js';
import type { ReceivedRequest } from './receiver.js';

/**
 * A receiver's own check, written independently of server/domain/webhooks/signing.ts: `sha256=` + hex HMAC-SHA256 of the
 * raw body keyed with the secret, compared in constant time.
 */
export function independentlyVerified(secret: string, request: ReceivedRequest): boolean {
  const header = request.headers['x-webhook-signature'];
  if (typeof header !== 'string') return false;
  const expected = Buffer.from(`sha256=${createHmac('sha256', secret).update(request.rawBody).digest('hex')}`, 'utf8');
  const given = Buffer.from(header, 'utf8');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** Emits `count` staging.complete events for one key, `perTransaction` to a transaction, as the staging code would. */
export async function emitStagingEvents(
  db: Db,
  input: { accountId: string; keyId: number; count: number; perTransaction?: number },
): Promise<string[]> {
  const ids: string[] = [];
  const perTransaction = input.perTransaction ?? 50;
  for (let done = 0; done < input.count; done += perTransaction) {
    const n = Math.min(perTransaction, input.count - done);
    const batch = await inTransaction(db, async (trx) => {
      const out: string[] = [];
      for (let i = 0; i < n; i++) {
        const emitted = await emitEvent(trx, {
          accountId: input.accountId,
          keyId: input.keyId,
          event: 'staging.complete',
          data: {
            image_url: `https://img.example.test/${done + i}.jpg`,
            claim_code: 'RS-ABCD2345',
            style: 'modern',
            room_type: 'living_room',
            credits_used: 1,
            credits_remaining: 9,
            image_id: `img_${done + i}`,
          },
          now: Date.now(),
        });
        out.push(emitted.eventId);
      }
      return out;
    });
    ids.push(...batch);
  }
  return ids;
}
