import type { RequestHandler } from 'express';
import { errorResponse } from '../errors.js';

const WITHOUT_BODY = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Dashboard form posts are read by Remix as a stream, so the limit is checked before it starts: a declared length
 * over the limit gets 413, and a body of undeclared length (chunked) is refused, since browsers always declare it.
 */
export function dashboardBodyLimit(
  defaultLimitBytes: number,
  largerForPaths: Readonly<Record<string, number>> = {},
): RequestHandler {
  return (req, res, next) => {
    if (WITHOUT_BODY.has(req.method)) return next();
    const limitBytes = largerForPaths[req.path] ?? defaultLimitBytes;
    const declared = req.headers['content-length'];
    const refuse = (code: 'payload_too_large' | 'invalid_request', message: string) => {
      const { status, body } = errorResponse(code, message);
      res.setHeader('Connection', 'close');
      res.status(status).json(body);
    };
    if (declared === undefined && req.headers['transfer-encoding'] !== undefined) {
      return refuse('invalid_request', 'Form posts must declare their Content-Length.');
    }
    if (Number(declared ?? 0) > limitBytes)
      return refuse('payload_too_large', `Form posts are limited to ${Math.round(limitBytes / 1024)} KB.`);
    next();
  };
}
