/**
 * Every place Roomstage leans on a library's undocumented behaviour lives here, each pinned by
 * test/unit/library-internals.test.ts: a library upgrade that changes one of them breaks that test, not production.
 */
import type { Request, RequestHandler } from 'express';
import type { AnyTRPCRouter } from '@trpc/server';
import { errorResponse } from '../errors.js';

// ── tRPC ────────────────────────────────────────────────────────────────────────────────────────────────────────

/** Each procedure of a router with its meta, by dotted path, read from the router's `_def`. */
export function proceduresOf<M>(router: AnyTRPCRouter): Array<{ path: string; meta: M | undefined }> {
  return Object.entries(router._def.procedures as Record<string, { _def: { meta?: M } }>).map(([path, procedure]) => ({ path, meta: procedure._def.meta }));
}

/**
 * What a middleware returns to answer for the procedure without running it (an Idempotency-Key replay): tRPC's own
 * middleware result shape, `marker` included, so the middlewares above it see an ordinary success.
 */
export function answerWithoutProcedure<T>(data: unknown): T {
  return { ok: true, data, marker: 'middlewareMarker' } as T;
}

// ── trpc-to-openapi (the REST bridge) ───────────────────────────────────────────────────────────────────────────

/**
 * The bridge writes `{message, code: <tRPC code>, issues, data}` and nothing can change `code`
 * (mcampa/trpc-to-openapi#168); the error formatter already put the CONTRACT §1 body in `data.contract`, so the
 * response is rewritten to exactly that body on its way out.
 */
export const rewriteBridgeErrors: RequestHandler = (_req, res, next) => {
  const end = res.end.bind(res) as (...args: unknown[]) => typeof res;
  res.end = ((chunk?: unknown, ...rest: unknown[]) => {
    if (res.statusCode >= 400 && (typeof chunk === 'string' || Buffer.isBuffer(chunk))) {
      const contractBody = contractBodyOf(String(chunk));
      // A successful procedure may answer >= 400 on purpose (health's 503); only error shapes are rewritten.
      if (contractBody) return end(JSON.stringify(contractBody), ...rest);
    }
    return end(chunk, ...rest);
  }) as typeof res.end;
  next();
};

function contractBodyOf(text: string): unknown {
  try {
    return (JSON.parse(text) as { data?: { contract?: { body?: unknown } } }).data?.contract?.body;
  } catch {
    return errorResponse('internal_error', 'Unexpected error.').body;
  }
}

/**
 * The bridge builds a fetch `Request` from every request just to get an abort signal, and for that it runs
 * `JSON.stringify(req.body)`: megabytes of base64 copied and thrown away on each image request (~10 ms and a
 * large garbage string each). A non-enumerable `toJSON` makes that copy tiny; the procedure's input is built by
 * spreading the body, which copies only enumerable fields, so validation still sees every field.
 */
export function hideBodyFromBridgeCopy(body: unknown): void {
  if (body && typeof body === 'object') Object.defineProperty(body, 'toJSON', { value: () => ({}), enumerable: false });
}

// ── Express body parsers ────────────────────────────────────────────────────────────────────────────────────────

/** Sets `req.body` and the `_body` flag by which every body-parser parser further down skips the request. */
export function setParsedBody(req: Request, body: unknown): void {
  req.body = body;
  req.headers['content-type'] = 'application/json';
  (req as Request & { _body?: boolean })._body = true;
}
