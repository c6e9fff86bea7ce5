import { EventEmitter } from 'node:events';
import type { Insertable, Kysely } from 'kysely';
import { afterCommit } from '../../../db/transaction.js';
import type { Database, WebhookDeliveriesTable, WebhookEventsTable } from '../../../db/schema.js';
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
    /** Its fidelity score (0–1: how much of the input's structure it kept). */
    fidelity?: number | null;
    /** What its fidelity check found changed: kinds and boxes `[x, y, width, height]` in the photo's pixels. */
    changes?: Array<{ kind: string; box: [number, number, number, number] }> | null;
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

export interface EventInput<E extends EventName = EventName> {
  accountId: string;
  keyId: number | null;
  event: E;
  data: EventData[E];
  now: number;
}

/** Any event with its data: what `emitEvents` takes, one element per event. */
export type AnyEventInput = { [E in EventName]: EventInput<E> }[EventName];

/**
 * Writes an event and one pending delivery per receiving webhook inside the caller's transaction, so the change
 * and its events commit or vanish together. Disabled webhooks and webhooks without a url receive nothing.
 */
export async function emitEvent<E extends EventName>(
  trx: Kysely<Database>,
  input: EventInput<E>,
): Promise<EmittedEvent> {
  return single(await emitEvents(trx, [input as AnyEventInput]));
}

/**
 * `emitEvent` for several events in one transaction, in three statements whatever their number (the receivers, the
 * events, the deliveries) rather than three per event: a transaction emitting a hundred events would otherwise
 * spend its time in round trips. Results come in the order of `inputs`.
 */
export async function emitEvents(trx: Kysely<Database>, inputs: readonly AnyEventInput[]): Promise<EmittedEvent[]> {
  if (inputs.length === 0) return [];
  const keyIds = new Set<number>();
  const accountIds = new Set<string>();
  for (const input of inputs) {
    if (!KEY_EVENTS.has(input.event)) accountIds.add(input.accountId);
    else if (input.keyId !== null) keyIds.add(input.keyId);
  }
  const receivers =
    keyIds.size + accountIds.size === 0
      ? []
      : await trx
          .selectFrom('webhooks')
          .select(['key_id', 'account_id'])
          .where('enabled', '=', 1)
          .where('url', 'is not', null)
          .where((eb) =>
            eb.or([
              ...(keyIds.size > 0 ? [eb('key_id', 'in', [...keyIds])] : []),
              ...(accountIds.size > 0 ? [eb('account_id', 'in', [...accountIds])] : []),
            ]),
          )
          .orderBy('key_id')
          .execute();
  const byKey = new Set<number>();
  const byAccount = new Map<string, number[]>();
  for (const receiver of receivers) {
    byKey.add(receiver.key_id);
    const keys = byAccount.get(receiver.account_id) ?? [];
    keys.push(receiver.key_id);
    byAccount.set(receiver.account_id, keys);
  }
  const emitted = await writeEvents(
    trx,
    inputs.map((input) => ({
      ...input,
      targetKeyIds: KEY_EVENTS.has(input.event)
        ? input.keyId !== null && byKey.has(input.keyId)
          ? [input.keyId]
          : []
        : (byAccount.get(input.accountId) ?? []),
    })),
  );
  if (emitted.some((event) => event.deliveryIds.length > 0)) afterCommit(trx, () => outboxSignal.emit(OUTBOX_WAKE));
  return emitted;
}

/**
 * The rows behind every event: the envelope with the exact bytes each attempt will send, and one delivery per target
 * webhook. `leasedUntil` keeps the worker away from the deliveries because the caller attempts them itself (test.ping).
 */
export async function writeEvent<E extends EventName>(
  trx: Kysely<Database>,
  input: EventInput<E> & { targetKeyIds: number[]; leasedUntil?: number },
): Promise<EmittedEvent> {
  return single(await writeEvents(trx, [input as TargetedEvent]));
}

type TargetedEvent = AnyEventInput & { targetKeyIds: number[]; leasedUntil?: number };

function single(emitted: EmittedEvent[]): EmittedEvent {
  const [event] = emitted;
  if (!event || emitted.length !== 1) throw new Error(`Expected one emitted event, got ${emitted.length}`);
  return event;
}

/** Rows per multi-row INSERT: well under the bound-parameter limits of SQLite (32,766) and MySQL (65,535). */
const ROWS_PER_INSERT = 500;

async function writeEvents(trx: Kysely<Database>, inputs: readonly TargetedEvent[]): Promise<EmittedEvent[]> {
  const events: Array<Insertable<WebhookEventsTable>> = [];
  const deliveries: Array<Insertable<WebhookDeliveriesTable>> = [];
  const emitted = inputs.map((input) => {
    const envelope: Envelope = { id: newId('event'), event: input.event, timestamp: iso(input.now), data: input.data };
    const payload = JSON.stringify(envelope);
    events.push({
      id: envelope.id,
      account_id: input.accountId,
      key_id: input.keyId,
      event: input.event,
      payload,
      created_at: input.now,
    });
    const deliveryIds = input.targetKeyIds.map((keyId) => {
      const id = newId('delivery');
      deliveries.push({
        id,
        event_id: envelope.id,
        key_id: keyId,
        status: 'pending',
        attempts: 0,
        next_attempt_at: input.now,
        locked_until: input.leasedUntil ?? null,
        last_status_code: null,
        last_error: null,
        delivered_at: null,
        created_at: input.now,
      });
      return id;
    });
    return { eventId: envelope.id, payload, deliveryIds };
  });
  for (let i = 0; i < events.length; i += ROWS_PER_INSERT)
    await trx
      .insertInto('webhook_events')
      .values(events.slice(i, i + ROWS_PER_INSERT))
      .execute();
  for (let i = 0; i < deliveries.length; i += ROWS_PER_INSERT)
    await trx
      .insertInto('webhook_deliveries')
      .values(deliveries.slice(i, i + ROWS_PER_INSERT))
      .execute();
  return emitted;
}
