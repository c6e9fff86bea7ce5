import { createHash } from 'node:crypto';
import type { Adapter, DatabaseSession, DatabaseUser } from 'lucia';
import type { Db } from '../../db/client.js';

/** What the sessions table keys a session by: the token's SHA-256, so reading the table yields no usable token. */
export function sessionIdHash(sessionId: string): string {
  return createHash('sha256').update(sessionId).digest('hex');
}

/**
 * Lucia v3 is deprecated upstream (a learning resource now), so this adapter stays deliberately thin. Lucia hands it
 * plaintext session ids; every query goes through their hash, and the sessions it returns carry the id Lucia asked
 * for (Lucia writes that id back into the refreshed cookie).
 */
export class KyselyLuciaAdapter implements Adapter {
  constructor(private readonly db: Db) {}

  async getSessionAndUser(sessionId: string): Promise<[session: DatabaseSession | null, user: DatabaseUser | null]> {
    const row = await this.db
      .selectFrom('sessions')
      .innerJoin('accounts', 'accounts.id', 'sessions.account_id')
      .leftJoin('user_security', 'user_security.user_id', 'sessions.account_id')
      .select([
        'sessions.account_id',
        'sessions.expires_at',
        'sessions.last_seen_at',
        'accounts.email',
        'accounts.created_at',
        'accounts.suspended_at',
        'user_security.email_verified_at',
      ])
      .where('sessions.id', '=', sessionIdHash(sessionId))
      .executeTakeFirst();
    if (!row) return [null, null];
    return [
      {
        id: sessionId,
        userId: row.account_id,
        expiresAt: new Date(row.expires_at),
        attributes: { last_seen_at: row.last_seen_at },
      },
      {
        id: row.account_id,
        attributes: {
          email: row.email,
          created_at: row.created_at,
          suspended_at: row.suspended_at,
          email_verified_at: row.email_verified_at ?? null,
        },
      },
    ];
  }

  /** The ids returned are hashes (the tokens are not kept); deleteSession accepts only tokens. */
  async getUserSessions(userId: string): Promise<DatabaseSession[]> {
    const rows = await this.db.selectFrom('sessions').selectAll().where('account_id', '=', userId).execute();
    return rows.map((row) => ({
      id: row.id,
      userId: row.account_id,
      expiresAt: new Date(row.expires_at),
      attributes: { last_seen_at: row.last_seen_at },
    }));
  }

  async setSession(session: DatabaseSession): Promise<void> {
    await this.db
      .insertInto('sessions')
      .values({
        id: sessionIdHash(session.id),
        account_id: session.userId,
        expires_at: session.expiresAt.getTime(),
        created_at: Date.now(),
        last_seen_at: session.attributes.last_seen_at,
      })
      .execute();
  }

  async updateSessionExpiration(sessionId: string, expiresAt: Date): Promise<void> {
    await this.db
      .updateTable('sessions')
      .set({ expires_at: expiresAt.getTime() })
      .where('id', '=', sessionIdHash(sessionId))
      .execute();
  }

  async deleteSession(sessionId: string): Promise<void> {
    await this.db.deleteFrom('sessions').where('id', '=', sessionIdHash(sessionId)).execute();
  }

  async deleteUserSessions(userId: string): Promise<void> {
    await this.db.deleteFrom('sessions').where('account_id', '=', userId).execute();
  }

  async deleteExpiredSessions(): Promise<void> {
    await this.db.deleteFrom('sessions').where('expires_at', '<=', Date.now()).execute();
  }
}
