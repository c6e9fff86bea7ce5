import type { Kysely } from 'kysely';
import { generateIdFromEntropySize } from 'lucia';
import type { Database } from '../../../db/schema.js';
import { sessionIdHash } from '../../auth/lucia-adapter.js';
import { SESSION_LIFETIME_MS } from '../../auth/lucia.js';
import { iso } from '../../clock.js';

/** Where a session was opened from, as the sessions list shows it. */
export interface SessionOrigin {
  ip: string | null;
  userAgent: string | null;
}

/**
 * Opens a session inside the caller's transaction (with the audit entry of the sign-in), in the form Lucia
 * validates: a random id handed out once, its hash as the row's key. It acts on the user's personal account first.
 */
export async function openSession(
  trx: Kysely<Database>,
  input: { userId: string; origin: SessionOrigin; now: number },
): Promise<string> {
  const token = generateIdFromEntropySize(25);
  await trx
    .insertInto('sessions')
    .values({
      id: sessionIdHash(token),
      user_id: input.userId,
      account_id: input.userId,
      expires_at: input.now + SESSION_LIFETIME_MS,
      created_at: input.now,
      last_seen_at: input.now,
      ip: input.origin.ip?.slice(0, 64) ?? null,
      user_agent: input.origin.userAgent?.slice(0, 512) ?? null,
    })
    .execute();
  return token;
}

/** A session's public id: a prefix of its row key (itself a hash), which names it without signing anyone in. */
const publicSessionId = (rowId: string) => `ses_${rowId.slice(0, 16)}`;

export async function listSessions(db: Kysely<Database>, input: { userId: string; currentToken: string; now: number }) {
  const current = sessionIdHash(input.currentToken);
  const rows = await db
    .selectFrom('sessions')
    .selectAll()
    .where('user_id', '=', input.userId)
    .where('expires_at', '>', input.now)
    .orderBy('last_seen_at', 'desc')
    .execute();
  return rows.map((row) => ({
    id: publicSessionId(row.id),
    created_at: iso(row.created_at),
    last_seen_at: iso(row.last_seen_at),
    ip: row.ip,
    user_agent: row.user_agent,
    current: row.id === current,
  }));
}

/** Ends every session of the user but `keepToken`'s (none kept when it is null); answers how many ended. */
export async function endSessions(
  trx: Kysely<Database>,
  input: { userId: string; keepToken: string | null },
): Promise<number> {
  let query = trx.deleteFrom('sessions').where('user_id', '=', input.userId);
  if (input.keepToken) query = query.where('id', '!=', sessionIdHash(input.keepToken));
  const result = await query.executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** At most one write a minute per session: enough for "last seen", no write per request. */
export const LAST_SEEN_RESOLUTION_MS = 60_000;

export async function touchSession(
  db: Kysely<Database>,
  input: { token: string; lastSeenAt: number | null; origin: SessionOrigin; now: number },
): Promise<void> {
  if (input.lastSeenAt !== null && input.now - input.lastSeenAt < LAST_SEEN_RESOLUTION_MS) return;
  await db
    .updateTable('sessions')
    .set({ last_seen_at: input.now, ip: input.origin.ip?.slice(0, 64) ?? null })
    .where('id', '=', sessionIdHash(input.token))
    .execute();
}
