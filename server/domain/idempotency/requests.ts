import { createHash } from 'node:crypto';
import type { Db } from '../../../db/client.js';
import { isUniqueViolation } from '../../../db/errors.js';
import { AppError } from '../../errors.js';

/** A request still running under the same key ends within seconds; a client may retry after this long. */
const RETRY_SOON = { 'Retry-After': '2' };

export const IDEMPOTENCY_TTL_MS = 24 * 3_600_000;
const KEY_PATTERN = /^[\x20-\x7E]{1,255}$/;

export function parseIdempotencyKey(header: string | string[] | undefined): string | null {
  if (header === undefined) return null;
  const value = Array.isArray(header) ? header[0] : header;
  if (value === undefined || !KEY_PATTERN.test(value)) {
    throw new AppError('invalid_request', 'Idempotency-Key must be 1–255 printable ASCII characters.', {
      details: [{ path: 'Idempotency-Key', message: 'must be 1–255 printable ASCII characters' }],
    });
  }
  return value;
}

/** Key order does not matter to the request a client meant, so it does not change the fingerprint. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

export function requestFingerprint(operation: string, input: unknown): string {
  return createHash('sha256').update(operation).update('\n').update(canonicalJson(input)).digest('hex');
}

export type IdempotencyStart = { kind: 'first' } | { kind: 'replay'; body: unknown };

interface Scope {
  keyId: number;
  idempotencyKey: string;
}

/** The Idempotency-Key record a request started (its `created_at`), so it frees its own record and no later one. */
export interface IdempotencyClaim {
  key: string;
  startedAt: number;
}

/**
 * Claims the key for this request, or finds the earlier one: its stored response (replay), or a conflict when the
 * earlier request differs or is still running. The primary key makes two simultaneous first attempts impossible.
 */
export async function beginIdempotentRequest(
  db: Db,
  scope: Scope & { fingerprint: string; now: number },
): Promise<IdempotencyStart> {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      await db
        .insertInto('idempotency_keys')
        .values({
          key_id: scope.keyId,
          idempotency_key: scope.idempotencyKey,
          fingerprint: scope.fingerprint,
          status: 'in_progress',
          response_body: null,
          created_at: scope.now,
        })
        .execute();
      return { kind: 'first' };
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
    }
    const earlier = await db
      .selectFrom('idempotency_keys')
      .selectAll()
      .where('key_id', '=', scope.keyId)
      .where('idempotency_key', '=', scope.idempotencyKey)
      .executeTakeFirst();
    if (!earlier) continue; // it was abandoned in between: try to claim it again
    if (earlier.created_at + IDEMPOTENCY_TTL_MS <= scope.now) {
      await db
        .deleteFrom('idempotency_keys')
        .where('key_id', '=', scope.keyId)
        .where('idempotency_key', '=', scope.idempotencyKey)
        .where('created_at', '=', earlier.created_at)
        .execute();
      continue;
    }
    if (earlier.fingerprint !== scope.fingerprint) {
      throw new AppError(
        'conflict',
        'This Idempotency-Key was already used with a different request. Use a new key for a new request.',
      );
    }
    if (earlier.status !== 'completed' || earlier.response_body === null) {
      throw new AppError(
        'conflict',
        'A request with this Idempotency-Key is still being processed. Retry after it finishes.',
        {},
        RETRY_SOON,
      );
    }
    return { kind: 'replay', body: JSON.parse(earlier.response_body) };
  }
  throw new AppError('conflict', 'This Idempotency-Key is in use by another request. Retry shortly.', {}, RETRY_SOON);
}

export async function completeIdempotentRequest(db: Db, scope: Scope, body: unknown): Promise<void> {
  await db
    .updateTable('idempotency_keys')
    .set({ status: 'completed', response_body: JSON.stringify(body) })
    .where('key_id', '=', scope.keyId)
    .where('idempotency_key', '=', scope.idempotencyKey)
    .execute();
}

/**
 * A failed request charged nothing and leaves nothing to replay: the client may retry it with the same key. With
 * `startedAt`, only the record that request started is freed, never a retry's that claimed the key since.
 */
export async function abandonIdempotentRequest(db: Db, scope: Scope & { startedAt?: number }): Promise<void> {
  let query = db
    .deleteFrom('idempotency_keys')
    .where('key_id', '=', scope.keyId)
    .where('idempotency_key', '=', scope.idempotencyKey)
    .where('status', '=', 'in_progress');
  if (scope.startedAt !== undefined) query = query.where('created_at', '=', scope.startedAt);
  await query.execute();
}
