import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { RequestHandler } from 'express';
import helmet, { type HelmetOptions } from 'helmet';

type NonceResponse = ServerResponse & { locals?: { cspNonce?: string } };

/** The per-response nonce that lets Remix's own inline scripts (hydration data, scroll restoration) run. */
export function cspNonceOf(res: NonceResponse): string {
  const nonce = res.locals?.cspNonce;
  if (!nonce) throw new Error('securityHeaders() must run before anything asks for the CSP nonce');
  return nonce;
}

/** Machine endpoints: JSON for programs, never a document a browser renders. */
const MACHINE_PATHS = /^\/(api|trpc|metrics)(\/|$)/;
/** The server-written API reference (not its Swagger UI page). */
const REFERENCE_PATHS = /^\/docs(\/(?!try(\/|$))|$)/;

/**
 * helmet's headers on every response. Pages get a Content-Security-Policy the dashboard and /docs satisfy: scripts only
 * from this origin or with the response's nonce (no inline handlers, no eval), nothing may frame us, no plugins.
 * Styles allow inline attributes (React `style={…}`, Swagger UI); images may be data:/blob: previews or come from the
 * public base URL. Form posts may continue to Stripe Checkout. Staged images stay embeddable on customers' sites
 * (see `embeddableResources`).
 *
 * The API, /trpc and /metrics answer data, not documents: they get the same headers with the fixed policy
 * `default-src 'none'; frame-ancestors 'none'` (OWASP's advice for REST responses) and no nonce, which helmet sends
 * as one precomputed string instead of building a policy per response (bench:auth's hot path).
 */
export function securityHeaders(options: { publicBaseUrl: string }): RequestHandler {
  const publicOrigin = new URL(options.publicBaseUrl).origin;
  const https = publicOrigin.startsWith('https:');
  const common = {
    xFrameOptions: { action: 'deny' },
    referrerPolicy: { policy: 'strict-origin-when-cross-origin' },
    strictTransportSecurity: https ? { maxAge: 31_536_000, includeSubDomains: false } : false,
  } as const;
  const pageOptions: HelmetOptions = {
    ...common,
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'", (_req, res) => `'nonce-${cspNonceOf(res as NonceResponse)}'`],
        scriptSrcAttr: ["'none'"],
        styleSrc: ["'self'", "'unsafe-inline'"],
        imgSrc: ["'self'", 'data:', 'blob:', publicOrigin],
        fontSrc: ["'self'", 'data:'],
        connectSrc: ["'self'"],
        objectSrc: ["'none'"],
        baseUri: ["'self'"],
        formAction: ["'self'", 'https://checkout.stripe.com'],
        frameAncestors: ["'none'"],
        // Over plain HTTP (local use) this directive would send the browser to an https:// that is not there.
        upgradeInsecureRequests: https ? [] : null,
      },
    },
  };
  const pageHeaders = helmet(pageOptions);
  // The API reference is public, read-only and opens no windows, so it has nothing for Cross-Origin-Opener-Policy to
  // guard; without it a browser arriving from another site keeps its process instead of swapping it, which Lighthouse
  // measured as ~350 ms of blocking time on a page without scripts. Swagger UI (/docs/try) keeps the header.
  const referenceHeaders = helmet({ ...pageOptions, crossOriginOpenerPolicy: false });
  const machineHeaders = helmet({
    ...common,
    contentSecurityPolicy: { useDefaults: false, directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] } },
  });
  return (req, res, next) => {
    if (MACHINE_PATHS.test(req.path)) return machineHeaders(req, res, next);
    // 122 random bits from the cached pool (randomUUID), as hex: a valid nonce without a sync entropy call per response.
    res.locals.cspNonce = randomUUID().replaceAll('-', '');
    (REFERENCE_PATHS.test(req.path) ? referenceHeaders : pageHeaders)(req, res, next);
  };
}

/** Staged image URLs are meant to be shown on customers' listings, so they opt out of same-origin CORP. */
export const embeddableResources: RequestHandler = (_req, res, next) => {
  res.setHeader('Cross-Origin-Resource-Policy', 'cross-origin');
  next();
};
