import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { RequestHandler } from 'express';
import type { Logger } from './logger.js';
import type { Metrics } from './metrics.js';

/** What one request learns about itself while it runs, for its log line. */
export interface RequestInfo {
  id: string;
  /** Set by the credential checks once the caller is known. */
  accountId?: string;
}

const infoByRequest = new WeakMap<IncomingMessage, RequestInfo>();

/** The request's info; a request that came in some other way (a test caller) gets a detached one. */
export function requestInfoOf(req: IncomingMessage): RequestInfo {
  let info = infoByRequest.get(req);
  if (!info) {
    info = { id: newRequestId() };
    infoByRequest.set(req, info);
  }
  return info;
}

/** How many /api paths `createRouteLabeler` remembers the template of. */
const REMEMBERED_API_PATHS = 1024;

const INCOMING_ID = /^[\w.:@=+/-]{1,128}$/;

// randomUUID draws from a cached entropy pool: a sync randomBytes call per request cost ~1.5 % of bench:auth's CPU.
const newRequestId = () => `req_${randomUUID().replaceAll('-', '').slice(0, 16)}`;

/**
 * Route labels stay few (metrics cardinality): /api/v1 paths by their OpenAPI template, /trpc by procedure name,
 * images by their route, and everything else the dashboard serves as one label.
 */
export function createRouteLabeler(input: { apiPaths: string[]; procedures: string[] }): (path: string) => string {
  const templates = input.apiPaths.map((template) => ({
    template,
    pattern: new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}/?$`),
  }));
  const procedures = new Set(input.procedures);
  // Most requests repeat a path seen moments ago (a client polling a job, a dashboard page): its template is kept
  // instead of testing each template's pattern again. Paths carry ids, so the memory is emptied when it fills.
  const apiRoutes = new Map<string, string>();
  const apiRouteOf = (path: string): string => {
    let route = apiRoutes.get(path);
    if (route === undefined) {
      route = templates.find((t) => t.pattern.test(path))?.template ?? '/api/(unknown)';
      if (apiRoutes.size >= REMEMBERED_API_PATHS) apiRoutes.clear();
      apiRoutes.set(path, route);
    }
    return route;
  };
  return (path) => {
    if (path.startsWith('/trpc/')) {
      const name = path.slice('/trpc/'.length);
      return procedures.has(name) ? `/trpc/${name}` : name.includes(',') ? '/trpc/(batch)' : '/trpc/(unknown)';
    }
    if (path.startsWith('/api/')) return apiRouteOf(path);
    if (path.startsWith('/images/')) return '/images/:name';
    if (path.startsWith('/o/')) return path.endsWith('/original') ? '/o/:token/original' : '/o/:token';
    if (path.startsWith('/build/')) return '/build/*';
    if (path === '/metrics' || path.startsWith('/docs')) return path.startsWith('/docs') ? '/docs' : '/metrics';
    return '(dashboard)';
  };
}

/**
 * One log line and one metrics sample per request: method, route, status, duration, account, request id.
 * `X-Request-Id` is taken from the client when it looks like an id, made up otherwise, and always sent back.
 */
export function requestLogging(options: {
  log: Logger;
  metrics: Metrics;
  routeOf: (path: string) => string;
}): RequestHandler {
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    const incoming = req.headers['x-request-id'];
    const info: RequestInfo = {
      id: typeof incoming === 'string' && INCOMING_ID.test(incoming) ? incoming : newRequestId(),
    };
    infoByRequest.set(req, info);
    res.setHeader('X-Request-Id', info.id);
    res.once('close', () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const path = (req.originalUrl.split('?')[0] ?? '/').replace(/\/{2,}/g, '/');
      const route = options.routeOf(path);
      const status = res.headersSent ? res.statusCode : 499;
      options.metrics.requests.inc({ method: req.method, route, status: String(status) });
      options.metrics.requestSeconds.observe({ method: req.method, route }, seconds);
      const level = status >= 500 ? 'error' : 'info';
      // An image name is the capability to fetch it: logs name the route, not the file.
      options.log[level](
        {
          req_id: info.id,
          method: req.method,
          route,
          path: route === '/images/:name' ? route : path,
          status,
          duration_ms: Math.round(seconds * 10_000) / 10,
          account: info.accountId ?? null,
        },
        'request',
      );
    });
    next();
  };
}
