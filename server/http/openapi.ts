import type { IncomingMessage } from 'node:http';
import type { RequestHandler } from 'express';
import { keepJsonBodiesStrict, proceduresOf } from '../adapters/library-internals.js';
import { createOpenApiExpressMiddleware, generateOpenApiDocument, type OpenAPIObject } from 'trpc-to-openapi';
import { AppError, isServerFault, toErrorResponse } from '../errors.js';
import { describeAsyncRequests } from './async-request-docs.js';
import { describeErrors } from './error-docs.js';
import { describeImageUploads } from './image-upload-docs.js';
import { BufferedResponse } from '../response-control.js';
import { CROSS_SITE_MESSAGE, isCrossSiteCookieRequest } from './same-origin.js';
import { log } from '../observability/logger.js';
import { requestInfoOf } from '../observability/request-log.js';
import { appRouter } from '../root.js';
import type { Services } from '../services.js';
import type { AuthKind, Context, Meta } from '../trpc.js';
import { APP_VERSION } from '../version.js';

const SECURITY_SCHEME_BY_AUTH: Record<Exclude<AuthKind, 'none'>, string> = {
  apiKey: 'apiKey',
  session: 'identityToken',
};

const SECURITY_SCHEMES = {
  apiKey: {
    type: 'http' as const,
    scheme: 'bearer',
    bearerFormat: 'sk_live_… / sk_test_…',
    description:
      'API key of a staging company: Authorization: Bearer sk_live_… Create keys in the dashboard (Settings → API).',
  },
  identityToken: {
    type: 'http' as const,
    scheme: 'bearer',
    bearerFormat: 'session token',
    description:
      'Identity token of a signed-in dashboard user, from POST /api/v1/auth/login or signup. The dashboard sends it as a cookie.',
  },
};

/**
 * trpc-to-openapi puts every scheme on every protected operation; each procedure builder tags its credential kind
 * in `meta.auth`, so the document is corrected here to name exactly the one scheme an operation accepts.
 */
export function buildOpenApiDocument(baseUrl: string): OpenAPIObject {
  const document = generateOpenApiDocument(appRouter, {
    title: 'Roomstage API',
    description:
      'Virtual staging for property photos. Staging companies call the Key endpoints with an API key; the dashboard and ' +
      'agents use the Token endpoints with an identity token. Errors are JSON: {error, code, message, …}.',
    version: APP_VERSION,
    baseUrl,
    securitySchemes: SECURITY_SCHEMES,
  });
  const successStatuses = new Map<string, number>();
  for (const { meta } of proceduresOf<Meta>(appRouter)) {
    if (!meta?.openapi) continue;
    const method = meta.openapi.method.toLowerCase() as 'get';
    const operation = document.paths?.[meta.openapi.path]?.[method];
    if (!operation) continue;
    const auth = meta.auth ?? 'none';
    if (auth === 'none') delete operation.security;
    else operation.security = [{ [SECURITY_SCHEME_BY_AUTH[auth]]: [] }];
    if (meta.successStatus) successStatuses.set(`${method} ${meta.openapi.path}`, meta.successStatus);
  }
  return describeErrors(describeAsyncRequests(describeImageUploads(document)), successStatuses);
}

const NO_UPLOADS: ReadonlyMap<string, Buffer> = new Map();

type ContextRequest = IncomingMessage & {
  uploads?: Context['uploads'];
  verifiedApiKey?: Context['verifiedApiKey'];
  ip?: string;
  secure?: boolean;
  protocol?: string;
};

/**
 * `refuseCrossSite`: for /trpc and the REST bridge, a state-changing call that only the session cookie authenticates
 * must come from our own pages (403 `forbidden`, before any procedure runs). Dashboard form posts are checked
 * before Remix (./http/same-origin.ts).
 */
export function createContextFactory(services: Services, options: { refuseCrossSite?: boolean } = {}) {
  const { publicBaseUrl } = services.config;
  return ({ req, response }: { req: ContextRequest; response: Context['response'] }): Context => {
    if (options.refuseCrossSite && isCrossSiteCookieRequest(req, publicBaseUrl))
      throw new AppError('forbidden', CROSS_SITE_MESSAGE);
    return {
      services,
      headers: req.headers,
      response,
      uploads: req.uploads ?? NO_UPLOADS,
      verifiedApiKey: req.verifiedApiKey,
      request: requestInfoOf(req),
      clientIp: req.ip ?? req.socket?.remoteAddress ?? 'unknown',
      // Express's req.secure follows X-Forwarded-Proto only as TRUST_PROXY allows.
      secureTransport: req.secure === true || publicBaseUrl.startsWith('https://'),
    };
  };
}

type MetaArgs = { ctx?: Context; errors: readonly unknown[] };

/** Shared by the REST bridge and /trpc: status and headers from the procedure's ResponseControl or the error. */
export function responseMetaFor({ ctx, errors }: MetaArgs) {
  const buffered = ctx?.response instanceof BufferedResponse ? ctx.response : undefined;
  const headers: Record<string, string | string[]> = { ...(buffered?.headers ?? {}) };
  if (buffered?.cookies.length) headers['Set-Cookie'] = buffered.cookies;
  if (errors.length > 0) {
    const error = toErrorResponse(errors[0]);
    return { status: error.status, headers: { ...headers, ...error.headers } };
  }
  return { status: buffered?.status ?? 200, headers };
}

/** Full errors (stacks included) go to the log; the response body never carries them. */
export function logServerFaults({ error, path, ctx }: { error: unknown; path?: string; ctx?: Context }) {
  if (isServerFault(toErrorResponse(error)))
    log.error({ err: (error as Error).cause ?? error, procedure: path, req_id: ctx?.request.id }, 'request failed');
}

export function createRestBridge(services: Services): RequestHandler {
  keepJsonBodiesStrict(appRouter);
  const createContext = createContextFactory(services, { refuseCrossSite: true });
  return createOpenApiExpressMiddleware({
    router: appRouter,
    createContext: ({ req }) => createContext({ req, response: new BufferedResponse() }),
    responseMeta: responseMetaFor as never,
    onError: logServerFaults,
  }) as RequestHandler;
}
