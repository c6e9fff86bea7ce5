/**
 * The one closed set of error codes and the one mapper from anything thrown to its JSON error body.
 * Domain code throws AppError; tRPC, the REST bridge and plain Express handlers all answer through toErrorResponse.
 */
export const ERROR_CATALOG = {
  invalid_request: { status: 400, error: 'invalid request' },
  authentication_required: { status: 401, error: 'authentication required' },
  otp_required: { status: 401, error: 'otp required' },
  insufficient_credits: { status: 402, error: 'insufficient credits' },
  no_credits: { status: 402, error: 'no credits remaining' },
  forbidden: { status: 403, error: 'forbidden' },
  email_unverified: { status: 403, error: 'email unverified' },
  insufficient_scope: { status: 403, error: 'insufficient scope' },
  account_suspended: { status: 403, error: 'account suspended' },
  two_factor_required: { status: 403, error: 'two factor required' },
  not_found: { status: 404, error: 'not found' },
  conflict: { status: 409, error: 'conflict' },
  claim_already_redeemed: { status: 409, error: 'claim already redeemed' },
  payment_method_required: { status: 409, error: 'payment method required' },
  webhook_not_configured: { status: 409, error: 'webhook not configured' },
  claim_expired: { status: 410, error: 'claim expired' },
  payload_too_large: { status: 413, error: 'payload too large' },
  unsupported_media_type: { status: 415, error: 'unsupported media type' },
  invalid_image: { status: 422, error: 'invalid image' },
  unsupported_option: { status: 422, error: 'unsupported option' },
  engine_rejected: { status: 422, error: 'engine rejected' },
  structure_changed: { status: 422, error: 'structure changed' },
  not_a_room: { status: 422, error: 'not a room' },
  rate_limited: { status: 429, error: 'rate limited' },
  internal_error: { status: 500, error: 'internal error' },
  service_unavailable: { status: 503, error: 'service unavailable' },
  engine_unavailable: { status: 503, error: 'engine unavailable' },
} as const;

export type ErrorCode = keyof typeof ERROR_CATALOG;

export type ErrorBody = { error: string; code: ErrorCode; message: string } & Record<string, unknown>;

export type ErrorResponse = { status: number; body: ErrorBody; headers: Record<string, string> };

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly extra: Record<string, unknown>;
  readonly headers: Record<string, string>;

  constructor(
    code: ErrorCode,
    message: string,
    extra: Record<string, unknown> = {},
    headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'AppError';
    this.code = code;
    this.extra = extra;
    this.headers = headers;
  }
}

export const AUTH_MESSAGES = {
  apiKey:
    'Provide an API key as a Bearer token: Authorization: Bearer sk_live_… (create one in the dashboard under Settings → API).',
  session:
    'Sign in to get an identity token and send it as a Bearer token (Authorization: Bearer <token>), or use the dashboard session cookie.',
} as const;

/** What an unknown path under /api/v1 answers; operator endpoints answer the same to everyone else. */
export const UNKNOWN_ENDPOINT_MESSAGE = 'No such endpoint. See /api/v1/openapi.json for the list of endpoints.';

/** What an unknown path elsewhere under /api answers. */
export function noEndpointMessage(endpoint: string): string {
  return `No endpoint ${endpoint}. See /api/v1/openapi.json.`;
}

export function errorResponse(
  code: ErrorCode,
  message: string,
  extra: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): ErrorResponse {
  const { status, error } = ERROR_CATALOG[code];
  return { status, body: { error, code, message, ...extra }, headers };
}

type ZodLikeIssue = { path: PropertyKey[]; message: string };

function isZodError(value: unknown): value is { issues: ZodLikeIssue[] } {
  return value instanceof Error && value.name === 'ZodError' && Array.isArray((value as { issues?: unknown }).issues);
}

function validationDetails(issues: ZodLikeIssue[]) {
  return issues.map((issue) => ({ path: issue.path.map(String).join('.'), message: issue.message }));
}

/** tRPC's own codes that can reach us without an AppError behind them (router, bridge, body parser). */
const UNSUPPORTED_MEDIA_MESSAGE =
  'Send the body as application/json (or multipart/form-data where an image is uploaded).';

const TRPC_CODE_FALLBACKS: Record<string, [ErrorCode, string]> = {
  PARSE_ERROR: ['invalid_request', 'The request body is not valid JSON.'],
  BAD_REQUEST: ['invalid_request', 'The request is not valid.'],
  NOT_FOUND: ['not_found', UNKNOWN_ENDPOINT_MESSAGE],
  METHOD_NOT_SUPPORTED: ['not_found', 'No such endpoint for this method. See /api/v1/openapi.json.'],
  UNAUTHORIZED: ['authentication_required', AUTH_MESSAGES.apiKey],
  PAYLOAD_TOO_LARGE: ['payload_too_large', 'The request body is too large.'],
  UNSUPPORTED_MEDIA_TYPE: ['unsupported_media_type', UNSUPPORTED_MEDIA_MESSAGE],
  TOO_MANY_REQUESTS: ['rate_limited', 'Too many requests.'],
};

/** Maps anything thrown anywhere to a JSON error response. Never leaks stack traces or SQL. */
export function toErrorResponse(thrown: unknown): ErrorResponse {
  // tRPC wraps what procedures throw; the original sits in `cause`.
  const cause = thrown instanceof Error && thrown.name === 'TRPCError' ? (thrown.cause ?? thrown) : thrown;
  if (cause instanceof AppError) return errorResponse(cause.code, cause.message, cause.extra, cause.headers);
  if (isZodError(cause)) {
    return errorResponse('invalid_request', 'The request is not valid; see details.', {
      details: validationDetails(cause.issues),
    });
  }
  const trpcCode = thrown instanceof Error && 'code' in thrown ? String((thrown as { code: unknown }).code) : undefined;
  const fallback = trpcCode ? TRPC_CODE_FALLBACKS[trpcCode] : undefined;
  if (fallback) return errorResponse(fallback[0], fallback[1]);
  // body-parser / raw-body errors carry an HTTP status and a type.
  const httpError = cause as { status?: number; type?: string } | undefined;
  if (httpError?.type === 'entity.parse.failed')
    return errorResponse('invalid_request', 'The request body is not valid JSON.');
  if (httpError?.type === 'entity.too.large')
    return errorResponse('payload_too_large', 'The request body is too large.');
  if (cause instanceof URIError) return errorResponse('invalid_request', 'The URL has an invalid percent-encoding.');
  if (httpError?.status === 415) return errorResponse('unsupported_media_type', UNSUPPORTED_MEDIA_MESSAGE);
  return errorResponse('internal_error', 'Something went wrong on our side. It has been logged; please retry.');
}

/** For the server log: errors that are our fault are worth a stack trace, client errors are not. */
export function isServerFault(response: ErrorResponse): boolean {
  return response.status >= 500;
}
