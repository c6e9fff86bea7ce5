import type { Auth } from './lucia.js';

/**
 * The dashboard session cookie as a Set-Cookie value: HttpOnly and SameSite=Lax always, Secure whenever the request
 * came over HTTPS (which Lucia cannot know: it decides per process, we decide per request). A null session clears it.
 */
export function sessionCookieHeader(auth: Auth, sessionId: string | null, options: { secure: boolean }): string {
  const cookie = sessionId === null ? auth.createBlankSessionCookie() : auth.createSessionCookie(sessionId);
  cookie.attributes.httpOnly = true;
  cookie.attributes.sameSite = 'lax';
  cookie.attributes.secure = options.secure;
  return cookie.serialize();
}
