import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { RequestHandler } from 'express';
import helmet from 'helmet';

type NonceResponse = ServerResponse & { locals?: { cspNonce?: string } };

/** The per-response nonce that lets Remix's own inline scripts (hydration data, scroll restoration) run. */
export function cspNonceOf(res: NonceResponse): string {
  const nonce = res.locals?.cspNonce;
  if (!nonce) throw new Error('securityHeaders() must run before anything asks for the CSP nonce');
  return nonce;
}

/**
 * helmet's headers on every response, with a Content-Security-Policy the dashboard and /docs satisfy: scripts only
 * from this origin or with the response's nonce (no inline handlers, no eval), nothing may frame us, no plugins.
 * Styles allow inline attributes (React `style={…}`, Swagger UI); images may be data:/blob: previews or come from the
 * public base URL. Form posts may continue to Stripe Checkout. Staged images stay embeddable on customers' sites
 * (see `embeddableResources`).
 */
export function securityHeaders(options: { publicBaseUrl: string }): RequestHandler[] {
  const publicOrigin = new URL(options.publicBaseUrl).origin;
  const https = publicOrigin.startsWith('https:');
  const assignNonce: RequestHandler = (_req, res, next) => {
    // 122 random bits from the cached pool (randomUUID), as hex: a valid nonce without a sync entropy call per response.
    res.locals.cspNonce = randomUUID().replaceAll('-', '');
    next();
  };
  const headers = helmet({
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
    xFrameOptions: { action: 'deny' },
    referrerPolicy: { policy: 'strict-origin-when-cross-origin' },
    strictTransportSecurity: https ? { maxAge: 31_536_000, includeSubDomains: false } : false,
  });
  return [assignNonce, headers];
}

/** Staged image URLs are meant to be shown on customers' listings, so they opt out of same-origin CORP. */
export const embeddableResources: RequestHandler = (_req, res, next) => {
  res.setHeader('Cross-Origin-Resource-Policy', 'cross-origin');
  next();
};
