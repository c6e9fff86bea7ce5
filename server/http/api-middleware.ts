import express, { type ErrorRequestHandler, type RequestHandler } from 'express';
import { errorResponse, isServerFault, noEndpointMessage, toErrorResponse } from '../errors.js';
import { log } from '../observability/logger.js';
import { requestInfoOf } from '../observability/request-log.js';

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);

/** `curl -X POST …/logout` sends no body and no Content-Type; treat that as an empty JSON object. */
export const emptyBodyIsJson: RequestHandler = (req, _res, next) => {
  const hasBody = Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined;
  if (BODY_METHODS.has(req.method) && !hasBody && !req.headers['content-type']) {
    req.headers['content-type'] = 'application/json';
    (req as { body?: unknown }).body = {};
  }
  next();
};

export const jsonBody = (limit: string | number): RequestHandler => express.json({ limit, strict: true });

/** `METHOD /path` of a request, without its query: how error messages name an endpoint. */
export function endpointOf(req: { method?: string; originalUrl?: string; url?: string }): string {
  return `${req.method ?? 'GET'} ${(req.originalUrl ?? req.url ?? '/').split('?')[0]}`;
}

/** Anything under /api that no route answered. */
export const apiNotFound: RequestHandler = (req, res) => {
  const { status, body } = errorResponse('not_found', noEndpointMessage(endpointOf(req)));
  res.status(status).json(body);
};

/**
 * A path whose percent-encoding does not decode (`/keys/%ff`) is the client's mistake on every route: 400 in the
 * error body, before any router tries to decode it and turns it into a URIError.
 */
export const refuseMalformedPaths: RequestHandler = (req, res, next) => {
  try {
    decodeURIComponent(req.path);
  } catch {
    const { status, body } = errorResponse('invalid_request', 'The URL path has an invalid percent-encoding.');
    return void res.status(status).json(body);
  }
  next();
};

/**
 * Errors raised outside a procedure (body parsing, multipart, anything a route let through) get the same error
 * bodies everywhere; the stack goes to the log, never to the client.
 */
export const jsonErrorHandler: ErrorRequestHandler = (error, req, res, next) => {
  if (res.headersSent) return next(error);
  const response = toErrorResponse(error);
  if (isServerFault(response)) log.error({ err: error, req_id: requestInfoOf(req).id }, 'request failed');
  res.status(response.status).set(response.headers).json(response.body);
};

/** Calls one /trpc request may batch: a dashboard page needs a few; hundreds would let one request do a minute's work. */
export const MAX_TRPC_BATCH = 10;

/**
 * `/trpc/a,b,c?batch=1` runs every listed procedure. Over MAX_TRPC_BATCH the whole request is refused before any
 * of them runs; under it, each call still counts against the caller's limits on its own.
 */
export const limitTrpcBatch: RequestHandler = (req, res, next) => {
  const calls = req.path.slice(1).split(',').length;
  if (calls <= MAX_TRPC_BATCH) return next();
  const { status, body } = errorResponse(
    'invalid_request',
    `A /trpc batch may hold at most ${MAX_TRPC_BATCH} calls; this one has ${calls}. Split it.`,
  );
  res.status(status).json(body);
};
