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

  /**
   * The session, its user, and the account it currently acts on with the user's role there (null when the user is
   * no longer a member of it: server/trpc/session.ts then falls back to the personal account). One query.
   */
  async getSessionAndUser(sessionId: string): Promise<[session: DatabaseSession | null, user: DatabaseUser | null]> {
    const row = await this.db
      .selectFrom('sessions')
      .innerJoin('users', 'users.id', 'sessions.user_id')
      .leftJoin('user_security', 'user_security.user_id', 'sessions.user_id')
      .leftJoin('memberships', (join) =>
        join
          .onRef('memberships.account_id', '=', 'sessions.account_id')
          .onRef('memberships.user_id', '=', 'sessions.user_id'),
      )
      .leftJoin('accounts', 'accounts.id', 'memberships.account_id')
      .select([
        'sessions.user_id',
        'sessions.account_id',
        'sessions.expires_at',
        'sessions.last_seen_at',
        'users.email',
        'users.created_at',
        'user_security.email_verified_at',
        'user_security.totp_enabled_at',
        'memberships.role',
        'accounts.name as account_name',
        'accounts.suspended_at as account_suspended_at',
        'accounts.require_2fa as account_require_2fa',
      ])
      .where('sessions.id', '=', sessionIdHash(sessionId))
      .executeTakeFirst();
    if (!row) return [null, null];
    const account =
      row.role != null && row.account_name != null
        ? {
            id: row.account_id,
            name: row.account_name,
            role: row.role,
            suspended_at: row.account_suspended_at ?? null,
            require_2fa: row.account_require_2fa === 1,
          }
        : null;
    return [
      {
        id: sessionId,
        userId: row.user_id,
        expiresAt: new Date(row.expires_at),
        attributes: { last_seen_at: row.last_seen_at, account },
      },
      {
        id: row.user_id,
        attributes: {
          email: row.email,
          created_at: row.created_at,
          email_verified_at: row.email_verified_at ?? null,
          totp_enabled_at: row.totp_enabled_at ?? null,
        },
      },
    ];
  }

  /** The ids returned are hashes (the tokens are not kept); deleteSession accepts only tokens. */
  async getUserSessions(userId: string): Promise<DatabaseSession[]> {
    const rows = await this.db.selectFrom('sessions').selectAll().where('user_id', '=', userId).execute();
    return rows.map((row) => ({
      id: row.id,
      userId: row.user_id,
      expiresAt: new Date(row.expires_at),
      attributes: { last_seen_at: row.last_seen_at, account: null },
    }));
  }

  async setSession(session: DatabaseSession): Promise<void> {
    await this.db
      .insertInto('sessions')
      .values({
        id: sessionIdHash(session.id),
        user_id: session.userId,
        // A new session acts on its user's personal account, which has the user's id.
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
    await this.db.deleteFrom('sessions').where('user_id', '=', userId).execute();
  }

  async deleteExpiredSessions(): Promise<void> {
    await this.db.deleteFrom('sessions').where('expires_at', '<=', Date.now()).execute();
  }
}
