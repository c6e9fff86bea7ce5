import { timingSafeEqual } from 'node:crypto';
import type { RequestHandler } from 'express';
import { bearerToken } from '../auth/bearer.js';
import { errorResponse } from '../errors.js';
import { log } from '../observability/logger.js';
import type { Metrics } from '../observability/metrics.js';

function sameToken(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** True for a connection from this machine (127.0.0.0/8, ::1, or IPv4 loopback mapped into IPv6). */
function isLoopback(address: string | undefined): boolean {
  if (!address) return false;
  const v4 = address.startsWith('::ffff:') ? address.slice('::ffff:'.length) : address;
  return v4.startsWith('127.') || address === '::1';
}

/**
 * GET /metrics: bearer METRICS_TOKEN when one is set; without one, only connections from this machine (a scraper
 * on the host, or an operator's curl). The socket's own address decides, never a forwarded header.
 */
export function metricsEndpoint(metrics: Metrics, token: string | undefined): RequestHandler {
  if (!token) {
    log.warn(
      'METRICS_TOKEN is not set: GET /metrics answers only connections from this machine. Set it to scrape from elsewhere.',
    );
  }
  return async (req, res, next) => {
    try {
      if (token) {
        const given = bearerToken(req.headers);
        if (!given || !sameToken(given, token)) {
          const { status, body } = errorResponse(
            'authentication_required',
            'GET /metrics needs Authorization: Bearer <METRICS_TOKEN>.',
          );
          return res.status(status).set('WWW-Authenticate', 'Bearer').json(body);
        }
      } else if (!isLoopback(req.socket.remoteAddress)) {
        const { status, body } = errorResponse(
          'forbidden',
          'GET /metrics answers only on this machine until METRICS_TOKEN is set.',
        );
        return res.status(status).json(body);
      }
      res.set('Content-Type', metrics.registry.contentType).send(await metrics.render());
    } catch (error) {
      next(error);
    }
  };
}
