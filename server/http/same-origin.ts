import type { IncomingMessage } from 'node:http';
import type { RequestHandler } from 'express';
import { SESSION_COOKIE_NAME } from '../auth/lucia.js';
import { bearerToken } from '../auth/bearer.js';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export const CROSS_SITE_MESSAGE =
  'This request came from another site; the dashboard session cannot be used from there.';

type OriginRequest = IncomingMessage & { protocol?: string };

/** True when a browser says the request was started by another site: an Origin we are not, or Sec-Fetch-Site. */
function isCrossSite(req: OriginRequest, publicBaseUrl: string): boolean {
  const origin = req.headers.origin;
  if (origin !== undefined) {
    const own = new Set([new URL(publicBaseUrl).origin]);
    // Behind a proxy, req.protocol follows X-Forwarded-Proto only as TRUST_PROXY allows.
    if (req.headers.host) own.add(`${req.protocol ?? 'http'}://${req.headers.host}`.toLowerCase());
    if (!own.has(origin.toLowerCase())) return true;
  }
  return req.headers['sec-fetch-site'] === 'cross-site';
}

/** A request the dashboard session cookie would authenticate: the cookie is there and no Bearer credential is. */
function isCookieAuthenticated(req: IncomingMessage): boolean {
  if (bearerToken(req.headers)) return false;
  return (req.headers.cookie ?? '').split(';').some((part) => part.trim().startsWith(`${SESSION_COOKIE_NAME}=`));
}

/**
 * CSRF: a state-changing request that rides on the session cookie must come from our own pages. Requests that carry
 * a Bearer credential (API clients) are never affected: a browser cannot attach one on another site's behalf.
 */
export function isCrossSiteCookieRequest(req: OriginRequest, publicBaseUrl: string): boolean {
  return !SAFE_METHODS.has(req.method ?? 'GET') && isCookieAuthenticated(req) && isCrossSite(req, publicBaseUrl);
}

/**
 * Dashboard form posts from another site are refused whether or not a session cookie rides along: a forged sign-in
 * (login CSRF) is as unwelcome as a forged action. The page is plain HTML; nothing ran.
 */
export function refuseCrossSiteForms(publicBaseUrl: string): RequestHandler {
  return (req, res, next) => {
    if (SAFE_METHODS.has(req.method) || bearerToken(req.headers) || !isCrossSite(req, publicBaseUrl)) return next();
    res
      .status(403)
      .type('html')
      .send(
        '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Forbidden · Roomstage</title></head>' +
          `<body><h1>Forbidden</h1><p>${CROSS_SITE_MESSAGE} Open the <a href="/">Roomstage dashboard</a> and try again there.</p></body></html>`,
      );
  };
}
