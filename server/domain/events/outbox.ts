import { EventEmitter } from 'node:events';
import type { Kysely } from 'kysely';
import { afterCommit } from '../../../db/transaction.js';
import type { Database } from '../../../db/schema.js';
import { iso } from '../../clock.js';
import type { ErrorBody } from '../../errors.js';
import { newId } from '../../ids.js';

/** Event names and their data; the spec's fields first, our additions after. */
export interface EventData {
  'staging.complete': {
    image_url: string;
    /** Always set by a stage; a re-render of a decluttered image outside any claim has none of the three. */
    claim_code: string | null;
    style: string | null;
    room_type: string | null;
    credits_used: number;
    credits_remaining: number;
    image_id: string;
    /** Which variation of its photo (0-based) and the seed it was drawn with. */
    variation?: number;
    seed?: number;
    /** The public page of the unaltered original, and the caption to paste (null: the profile discloses nothing). */
    original_url?: string | null;
    disclosure_caption?: string | null;
    /** Its fidelity score (0–1, CONTRACT §15). */
    fidelity?: number | null;
    /** A re-render: the image it replaced. */
    rerender_of?: string;
  };
  'claim.redeemed': { claim_code: string; claimed_by_email: string; image_count: number; redeemed_at: string };
  'credits.low': { current_balance: number; threshold: number };
  'auto_topup.success': { amount: number; new_balance: number; payment_id: string };
  'auto_topup.failed': { amount: number; current_balance: number; reason: string };
  'test.ping': { key_id: number; message: string };
  /** An asynchronous request that failed (its credits were refunded); `error` is the JSON error body. */
  'job.failed': { job_id: string; operation: string; error: ErrorBody };
}

export type EventName = keyof EventData;

/** Events for one key go to that key's webhook; account events go to every enabled webhook of the account. */
const KEY_EVENTS: ReadonlySet<EventName> = new Set(['staging.complete', 'claim.redeemed', 'test.ping', 'job.failed']);

export interface Envelope<E extends EventName = EventName> {
  id: string;
  event: E;
  timestamp: string;
  data: EventData[E];
}

/** In-process wake-up for the delivery worker, fired after the emitting transaction commits. */
export const outboxSignal = new EventEmitter();
outboxSignal.setMaxListeners(0);
export const OUTBOX_WAKE = 'wake';

export interface EmittedEvent {
  eventId: string;
  payload: string;
  deliveryIds: string[];
}

/**
 * Writes an event and one pending delivery per receiving webhook inside the caller's transaction, so the change
 * and its events commit or vanish together. Disabled webhooks and webhooks without a url receive nothing.
 */
export async function emitEvent<E extends EventName>(
  trx: Kysely<Database>,
  input: { accountId: string; keyId: number | null; event: E; data: EventData[E]; now: number },
): Promise<EmittedEvent> {
  let receivers = trx.selectFrom('webhooks').select('key_id').where('enabled', '=', 1).where('url', 'is not', null);
  receivers = KEY_EVENTS.has(input.event)
    ? receivers.where('key_id', '=', input.keyId ?? -1)
    : receivers.where('account_id', '=', input.accountId);
  const targets = await receivers.execute();
  const emitted = await writeEvent(trx, { ...input, targetKeyIds: targets.map((target) => target.key_id) });
  if (emitted.deliveryIds.length > 0) afterCommit(trx, () => outboxSignal.emit(OUTBOX_WAKE));
  return emitted;
}

/**
 * The rows behind every event: the envelope with the exact bytes each attempt will send, and one delivery per target
 * webhook. `leasedUntil` keeps the worker away from the deliveries because the caller attempts them itself (test.ping).
 */
export async function writeEvent<E extends EventName>(
  trx: Kysely<Database>,
  input: {
    accountId: string;
    keyId: number | null;
    event: E;
    data: EventData[E];
    now: number;
    targetKeyIds: number[];
    leasedUntil?: number;
  },
): Promise<EmittedEvent> {
  const envelope: Envelope<E> = { id: newId('event'), event: input.event, timestamp: iso(input.now), data: input.data };
  const payload = JSON.stringify(envelope);
  await trx
    .insertInto('webhook_events')
    .values({
      id: envelope.id,
      account_id: input.accountId,
      key_id: input.keyId,
      event: input.event,
      payload,
      created_at: input.now,
    })
    .execute();
  const deliveries = input.targetKeyIds.map((keyId) => ({
    id: newId('delivery'),
    event_id: envelope.id,
    key_id: keyId,
    status: 'pending' as const,
    attempts: 0,
    next_attempt_at: input.now,
    locked_until: input.leasedUntil ?? null,
    last_status_code: null,
    last_error: null,
    delivered_at: null,
    created_at: input.now,
  }));
  if (deliveries.length > 0) await trx.insertInto('webhook_deliveries').values(deliveries).execute();
  return { eventId: envelope.id, payload, deliveryIds: deliveries.map((d) => d.id) };
}
