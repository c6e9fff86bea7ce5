/**
 * Every place Roomstage leans on a library's undocumented behaviour lives here, each pinned by
 * test/unit/library-internals.test.ts: a library upgrade that changes one of them breaks that test, not production.
 * The one change that cannot be made from outside is a patch in patches/, applied by patch-package on install.
 */
import type { Request, RequestHandler } from 'express';
import type { AnyTRPCRouter } from '@trpc/server';
import { errorResponse } from '../errors.js';

// ── tRPC ────────────────────────────────────────────────────────────────────────────────────────────────────────

/** Each procedure of a router with its meta, by dotted path, read from the router's `_def`. */
export function proceduresOf<M>(router: AnyTRPCRouter): Array<{ path: string; meta: M | undefined }> {
  return Object.entries(router._def.procedures as Record<string, { _def: { meta?: M } }>).map(([path, procedure]) => ({
    path,
    meta: procedure._def.meta,
  }));
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
 * (mcampa/trpc-to-openapi#168); the error formatter already put the JSON error body in `data.contract`, so the
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

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const COERCIBLE = new Set(['number', 'boolean', 'bigint', 'date']);

interface ZodNode {
  _zod?: {
    def?: { type?: string; coerce?: boolean; innerType?: ZodNode; element?: ZodNode; shape?: Record<string, ZodNode> };
  };
}

/**
 * The bridge turns on zod's coercion (`def.coerce = true`) for every number and boolean of an input object on each
 * request, bodies included, so `"0x10"`, `"1e3"`, `true` and `[[7]]` all became numbers. A JSON body carries real
 * numbers: for the body fields of POST/PUT/PATCH/DELETE operations the flag is pinned off (path parameters, which
 * arrive as text, keep theirs). Query strings of GET operations are text too and keep the bridge's coercion.
 */
export function keepJsonBodiesStrict(router: AnyTRPCRouter): void {
  const procedures = router._def.procedures as Record<
    string,
    { _def: { meta?: { openapi?: { method: string; path: string } }; inputs?: ZodNode[] } }
  >;
  for (const procedure of Object.values(procedures)) {
    const openapi = procedure._def.meta?.openapi;
    if (!openapi || !BODY_METHODS.has(openapi.method)) continue;
    const pathParams = new Set([...openapi.path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]));
    for (const input of procedure._def.inputs ?? []) {
      for (const [key, field] of Object.entries(unwrapped(input)._zod?.def?.shape ?? {})) {
        if (!pathParams.has(key)) pinCoercionOff(field);
      }
    }
  }
}

/** The schema inside optional, nullable, default and array wrappers (the ones the bridge looks through). */
function unwrapped(node: ZodNode): ZodNode {
  const def = node._zod?.def;
  const inner = def?.innerType ?? (def?.type === 'array' ? def.element : undefined);
  return inner ? unwrapped(inner) : node;
}

function pinCoercionOff(node: ZodNode): void {
  const def = unwrapped(node)._zod?.def;
  if (!def) return;
  if (def.type === 'object') for (const field of Object.values(def.shape ?? {})) pinCoercionOff(field);
  // Pinned once per process (every server in it shares the router's schemas); a getter marks it done.
  else if (
    COERCIBLE.has(def.type ?? '') &&
    def.coerce !== true &&
    !Object.getOwnPropertyDescriptor(def, 'coerce')?.get
  ) {
    Object.defineProperty(def, 'coerce', { get: () => false, set: () => undefined, configurable: false });
  }
}

// ── Express body parsers ────────────────────────────────────────────────────────────────────────────────────────

/** Sets `req.body` and the `_body` flag by which every body-parser parser further down skips the request. */
export function setParsedBody(req: Request, body: unknown): void {
  req.body = body;
  req.headers['content-type'] = 'application/json';
  (req as Request & { _body?: boolean })._body = true;
}
