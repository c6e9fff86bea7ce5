import express, { type ErrorRequestHandler, type RequestHandler } from 'express';
import { errorResponse, isServerFault, toErrorResponse } from '../errors.js';
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

/** Anything under /api that no route answered. */
export const apiNotFound: RequestHandler = (req, res) => {
  const { status, body } = errorResponse('not_found', `No endpoint ${req.method} ${req.originalUrl.split('?')[0]}. See /api/v1/openapi.json.`);
  res.status(status).json(body);
};

/** Errors raised before a procedure runs (body parsing, multipart) get the same CONTRACT §1 bodies. */
export const apiErrorHandler: ErrorRequestHandler = (error, req, res, next) => {
  if (res.headersSent) return next(error);
  const response = toErrorResponse(error);
  if (isServerFault(response)) log.error({ err: error, req_id: requestInfoOf(req).id }, 'request failed');
  res.status(response.status).set(response.headers).json(response.body);
};
