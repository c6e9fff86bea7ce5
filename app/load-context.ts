import type { AppCaller } from '../server/root.js';

/**
 * What server/main.ts hands every loader and action. Routes reach server code only through this typed caller
 * (never by importing server modules, which would bundle a second copy of them).
 */
declare module '@remix-run/node' {
  interface AppLoadContext {
    trpc: AppCaller;
    sessionCookie(token: string): string;
    blankSessionCookie(): string;
    /** This response's Content-Security-Policy nonce, for Remix's inline scripts (entry.server.tsx). */
    cspNonce: string;
    /** The JSON error view of anything a procedure threw: status, code, message, details…, and its headers (Retry-After). */
    describeError(error: unknown): {
      status: number;
      error: string;
      code: string;
      message: string;
      details?: { path: string; message: string }[];
      headers: Record<string, string>;
    } & Record<string, unknown>;
  }
}
