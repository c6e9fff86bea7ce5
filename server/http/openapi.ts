import type { IncomingMessage } from 'node:http';
import type { RequestHandler } from 'express';
import { TRPCError } from '@trpc/server';
import { keepJsonBodiesStrict, proceduresOf } from '../adapters/library-internals.js';
import { createOpenApiExpressMiddleware, generateOpenApiDocument, type OpenAPIObject } from 'trpc-to-openapi';
import { AppError, isServerFault, toErrorResponse } from '../errors.js';
import { describeAsyncRequests } from './async-request-docs.js';
import { describeErrors, withErrorComponents } from './error-docs.js';
import { describeImageUploads } from './image-upload-docs.js';
import { BufferedResponse } from '../response-control.js';
import { CROSS_SITE_MESSAGE, isCrossSiteCookieRequest } from './same-origin.js';
import { log } from '../observability/logger.js';
import { requestInfoOf } from '../observability/request-log.js';
import { appRouter } from '../root.js';
import type { Services } from '../services.js';
import type { AuthKind, Context, Meta } from '../trpc/index.js';
import { APP_VERSION } from '../version.js';

const SECURITY_SCHEME_BY_AUTH: Record<Exclude<AuthKind, 'none'>, string> = {
  apiKey: 'apiKey',
  session: 'identityToken',
  operator: 'identityToken',
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
      'Identity token of a signed-in dashboard user, from POST /api/v1/auth/login or signup. The dashboard sends it as a cookie. It acts on the session’s current account (POST /api/v1/accounts/current); the header `Roomstage-Account: acc_…` names another of the user’s accounts for one request (an account the user is not a member of: 404).',
  },
};

/** Every tag an operation may carry, in the order the docs list them; an operation with another tag fails the lint. */
const TAGS: Record<string, string> = {
  Accounts: 'Dashboard accounts: sign up, sign in and out for an identity token, the signed-in account.',
  'Account security':
    'E-mail verification, password reset and change, two-factor sign-in, active sessions and the audit log (Token).',
  Teams:
    'The accounts a user belongs to and switching between them; members with roles, e-mailed invites (Token). Each Token operation needs a role that allows it: otherwise 403 `forbidden` with `required_roles`.',
  'API keys': 'The API keys of an account (Token): create (the plaintext is shown once), list and revoke.',
  Credits: 'The credit balance of the API key’s account (Key).',
  Images: 'Stage, enhance and place products in room photos (Key), the styles on offer, and asynchronous jobs.',
  Claims: 'Claim codes (Token): preview and redeem the staged images a staging company handed over, list them.',
  Webhooks: 'The webhook of each API key (Token): url, signing secret, test pings and the deliveries.',
  Billing: 'Buying credits through Stripe Checkout, the card on file and the credit ledger (Token).',
  Settings: 'Account settings (Token): auto top-up and the low-balance notification.',
  Usage: 'What the account used and earned between two dates (Token).',
  Ads: 'Advertising (Token): products with their pictures, campaigns with budgets, ad funds and the spend report. Money in milli-cents is 1/1000 of a US cent.',
  Earnings: 'An agent’s share of the ad revenue of the images they redeemed (Token), and payouts.',
  Operators:
    'For Roomstage’s own operators only (an identity token of a verified address in OPERATOR_EMAILS; anyone else gets 404): find accounts, adjust credits and ad funds, refund purchases, suspend accounts, review products, settle payouts, the fleet’s numbers. Every change takes a `reason` and is audited.',
  Operations: 'Running the service: its health.',
};

const SAFE_INTEGER_BOUNDS = { minimum: -Number.MAX_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER } as const;

/**
 * zod bounds every `.int()` by JavaScript's safe-integer range; that says nothing about the API, so those bounds are
 * dropped and only the ones a schema states (`min`, `max`, `positive`) stay.
 */
function dropSafeIntegerBounds(node: unknown): void {
  if (typeof node !== 'object' || node === null) return;
  if (Array.isArray(node)) {
    for (const item of node) dropSafeIntegerBounds(item);
    return;
  }
  const schema = node as Record<string, unknown>;
  if (schema.type === 'integer') {
    for (const [bound, value] of Object.entries(SAFE_INTEGER_BOUNDS)) if (schema[bound] === value) delete schema[bound];
  }
  for (const value of Object.values(schema)) dropSafeIntegerBounds(value);
}

/**
 * Each procedure's meta completes its operation: trpc-to-openapi puts every scheme on every protected operation, so
 * `meta.auth` names the one scheme it accepts (public ones say `security: []`); `successStatus` and the error
 * responses come from the meta too (./error-docs.ts).
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
  describeAsyncRequests(describeImageUploads(document));
  const usedTags = new Set<string>();
  const errorResponses: Record<string, unknown> = {};
  for (const { meta } of proceduresOf<Meta>(appRouter)) {
    if (!meta?.openapi) continue;
    const method = meta.openapi.method.toLowerCase() as 'get';
    const operation = document.paths?.[meta.openapi.path]?.[method];
    if (!operation) continue;
    const auth = meta.auth ?? 'none';
    operation.security = auth === 'none' ? [] : [{ [SECURITY_SCHEME_BY_AUTH[auth]]: [] }];
    describeErrors(operation, meta, method, errorResponses);
    for (const tag of operation.tags ?? []) usedTags.add(tag);
  }
  document.info = {
    ...document.info,
    contact: { name: 'Roomstage API documentation', url: `${baseUrl}/docs` },
    license: { name: 'Proprietary', identifier: 'LicenseRef-Roomstage-Proprietary' },
  };
  document.tags = Object.entries(TAGS)
    .filter(([name]) => usedTags.has(name))
    .map(([name, description]) => ({ name, description }));
  dropSafeIntegerBounds(document.paths);
  dropSafeIntegerBounds(document.components);
  return withErrorComponents(document, errorResponses);
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
    // Thrown as tRPC's FORBIDDEN (JSON-RPC clients read the code), with the JSON error body's cause inside.
    if (options.refuseCrossSite && isCrossSiteCookieRequest(req, publicBaseUrl))
      throw new TRPCError({
        code: 'FORBIDDEN',
        message: CROSS_SITE_MESSAGE,
        cause: new AppError('forbidden', CROSS_SITE_MESSAGE),
      });
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
