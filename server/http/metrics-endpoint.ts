import { timingSafeEqual } from 'node:crypto';
import type { RequestHandler } from 'express';
import { bearerToken } from '../auth/bearer.js';
import { errorResponse } from '../errors.js';
import type { Metrics } from '../observability/metrics.js';

function sameToken(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** GET /metrics (CONTRACT §9): open, or bearer METRICS_TOKEN when one is set. */
export function metricsEndpoint(metrics: Metrics, token: string | undefined): RequestHandler {
  return async (req, res, next) => {
    try {
      if (token) {
        const given = bearerToken(req.headers);
        if (!given || !sameToken(given, token)) {
          const { status, body } = errorResponse('authentication_required', 'GET /metrics needs Authorization: Bearer <METRICS_TOKEN>.');
          return res.status(status).set('WWW-Authenticate', 'Bearer').json(body);
        }
      }
      res.set('Content-Type', metrics.registry.contentType).send(await metrics.registry.metrics());
    } catch (error) {
      next(error);
    }
  };
}
