import { Lucia, TimeSpan } from 'lucia';
import type { Db } from '../../db/client.js';
import type { Role } from '../../db/schema.js';
import { KyselyLuciaAdapter } from './lucia-adapter.js';

export const SESSION_COOKIE_NAME = 'roomstage_session';

/**
 * The session id is the identity token: the dashboard carries it in a cookie, API clients as a Bearer token. The
 * cookie's Secure flag is decided per request (./session-cookie.ts); the database keeps only the id's SHA-256.
 */
export const SESSION_LIFETIME_MS = 30 * 86_400_000;

export function createLucia(db: Db) {
  return new Lucia(new KyselyLuciaAdapter(db), {
    // Lucia extends a session when half its life has passed, so 30 days of idleness ends it.
    sessionExpiresIn: new TimeSpan(30, 'd'),
    sessionCookie: { name: SESSION_COOKIE_NAME, attributes: { secure: false, sameSite: 'lax' } },
    getUserAttributes: (attributes) => ({
      email: attributes.email,
      createdAt: attributes.created_at,
      emailVerifiedAt: attributes.email_verified_at,
      twoFactorEnabledAt: attributes.totp_enabled_at,
    }),
    getSessionAttributes: (attributes) => ({ lastSeenAt: attributes.last_seen_at, account: attributes.account }),
  });
}

export type Auth = ReturnType<typeof createLucia>;

/** The account a session acts on, with its user's role there; null when the user is no longer its member. */
export interface SessionAccount {
  id: string;
  name: string;
  role: Role;
  suspended_at: number | null;
  /** The account requires two-factor sign-in of its members (server/trpc/session.ts refuses a session without it). */
  require_2fa: boolean;
}

declare module 'lucia' {
  interface Register {
    Lucia: Auth;
    DatabaseUserAttributes: {
      email: string;
      created_at: number;
      email_verified_at: number | null;
      totp_enabled_at: number | null;
    };
    DatabaseSessionAttributes: { last_seen_at: number | null; account: SessionAccount | null };
  }
}
