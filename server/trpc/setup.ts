import type { IncomingHttpHeaders } from 'node:http';
import { initTRPC, TRPCError } from '@trpc/server';
import type { TRPC_ERROR_CODE_KEY } from '@trpc/server/rpc';
import type { OpenApiMeta } from 'trpc-to-openapi';
import type { KeyScope, VerifiedApiKey } from '../domain/keys/api-keys.js';
import type { Permission } from '../domain/teams/roles.js';
import { AppError, type ErrorCode, ERROR_CATALOG, toErrorResponse } from '../errors.js';
import type { RequestInfo } from '../observability/request-log.js';
import type { ResponseControl } from '../response-control.js';
import type { Services } from '../services.js';

/*
 * tRPC set up once: the context every request gets, the meta every procedure may declare, the error formatter, and
 * the public builder every other builder (./session.ts, ./api-key.ts, ./image.ts) starts from.
 */

/** Long-lived things every request may use; built once per process in server/services.ts. */
export interface Context {
  services: Services;
  headers: IncomingHttpHeaders;
  response: ResponseControl;
  /** Files of a multipart image request, kept as Buffers and named in the input by reference. */
  uploads: ReadonlyMap<string, Buffer>;
  /** The API key an image upload already verified before buffering its body: checked once per request. */
  verifiedApiKey?: VerifiedApiKey;
  /** The request's id and, once a credential is checked, its account (for the request's log line). */
  request: RequestInfo;
  /** The client's address (behind a proxy: as TRUST_PROXY allows), for per-IP limits. */
  clientIp: string;
  /** Served over HTTPS (directly, via a trusted proxy's X-Forwarded-Proto, or PUBLIC_BASE_URL https): cookies get Secure. */
  secureTransport: boolean;
  /**
   * Set for the dashboard's own calls (server/main.ts), one object per page request: the session is verified once
   * for all the loaders and the action of that request, and those calls spend no API budget (they are not requests
   * that reach the API from outside; the page request is the one that came in).
   */
  dashboard?: DashboardRequest;
}

export interface DashboardRequest {
  /** The page request's one session verification (a VerifiedSession): ./session.ts fills, reads and clears it. */
  session?: Promise<unknown>;
}

/** `operator`: an identity token of an operator; every other caller is told the endpoint does not exist (404). */
export type AuthKind = 'none' | 'session' | 'apiKey' | 'operator';
/**
 * `successStatus`: what the procedure answers when it sets a status other than 200 (the document says so).
 * `errors`: the error codes the procedure's own work can raise; `builderErrors`: those every procedure of a builder
 * can raise (set by the builder). The OpenAPI document adds what the credential and the HTTP method imply
 * (server/http/error-docs.ts), so a procedure declares only what is particular to it.
 */
export type Meta = OpenApiMeta<{
  auth?: AuthKind;
  successStatus?: 201 | 202;
  errors?: readonly ErrorCode[];
  builderErrors?: readonly ErrorCode[];
  /** API-key procedures: the scope a key needs to call it (checked once, in apiKeyProcedure). */
  scope?: KeyScope;
  /** Token procedures: what the user's role in the current account must allow (checked once, in sessionProcedure). */
  permission?: Permission;
  /**
   * Token procedures that change what a session verifies to (its account, its user's role or two-factor sign-in, the
   * session itself): the dashboard verifies the session again for the rest of that page request.
   */
  changesSession?: true;
}>;

const TRPC_CODE_BY_STATUS: Record<number, TRPC_ERROR_CODE_KEY> = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHORIZED',
  402: 'PAYMENT_REQUIRED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  409: 'CONFLICT',
  410: 'NOT_FOUND',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  422: 'UNPROCESSABLE_CONTENT',
  429: 'TOO_MANY_REQUESTS',
  503: 'SERVICE_UNAVAILABLE',
};

function trpcCodeFor(code: ErrorCode): TRPC_ERROR_CODE_KEY {
  return TRPC_CODE_BY_STATUS[ERROR_CATALOG[code].status] ?? 'INTERNAL_SERVER_ERROR';
}

const t = initTRPC
  .context<Context>()
  .meta<Meta>()
  .create({
    // Every client (REST bridge, /trpc, dashboard) gets the JSON error body under data.contract; no stack traces.
    errorFormatter({ shape, error }) {
      const contract = toErrorResponse(error);
      return {
        ...shape,
        message: contract.body.message,
        data: { code: shape.data.code, httpStatus: contract.status, path: shape.data.path, contract },
      };
    },
  });

/** Domain errors become TRPCErrors with the matching code, keeping the AppError as the cause. */
const domainErrors = t.middleware(async ({ next }) => {
  const result = await next();
  if (!result.ok && result.error.cause instanceof AppError) {
    const cause = result.error.cause;
    throw new TRPCError({ code: trpcCodeFor(cause.code), message: cause.message, cause });
  }
  return result;
});

export const router = t.router;
export const createCallerFactory = t.createCallerFactory;

export const publicProcedure = t.procedure.use(domainErrors).meta({ auth: 'none' });

/** A middleware over this setup's context and meta (the throttles in ./throttles.ts are made with it). */
export const middleware = t.middleware;
