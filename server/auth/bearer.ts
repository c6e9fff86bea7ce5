import type { IncomingHttpHeaders } from 'node:http';

/** The credential of `Authorization: Bearer <credential>`, or null when there is none. */
export function bearerToken(headers: IncomingHttpHeaders): string | null {
  const header = headers.authorization;
  if (!header) return null;
  return /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1] ?? null;
}
