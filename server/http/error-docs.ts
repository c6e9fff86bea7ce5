import { STATUS_CODES } from 'node:http';
import type { OpenAPIObject } from 'trpc-to-openapi';
import { ROLES, rolesFor } from '../domain/teams/roles.js';
import { ERROR_CATALOG, type ErrorCode } from '../errors.js';
import { CHANGE_KINDS } from '../imaging/fidelity/index.js';
import type { Meta } from '../trpc/index.js';

const ERROR_SCHEMA_NAME = 'Error';
const ERROR_REF = `#/components/schemas/${ERROR_SCHEMA_NAME}`;

/** Every error body, whatever the status: `{error, code, message}` plus the extra fields some codes add. */
const ERROR_SCHEMA = {
  type: 'object',
  description: 'Every error is this JSON body; some codes add the fields below.',
  required: ['error', 'code', 'message'],
  properties: {
    error: { type: 'string', description: 'Short lowercase text, e.g. "insufficient credits"' },
    code: { type: 'string', enum: Object.keys(ERROR_CATALOG), description: 'Stable snake_case id to branch on' },
    message: { type: 'string', description: 'A sentence for people: what went wrong and what to do' },
    details: {
      type: 'array',
      description: 'invalid_request: the fields that failed validation',
      items: {
        type: 'object',
        required: ['path', 'message'],
        properties: { path: { type: 'string' }, message: { type: 'string' } },
      },
    },
    credits_required: { type: 'integer', minimum: 1, description: 'insufficient_credits: what the request costs' },
    credits_available: { type: 'integer', minimum: 0, description: 'insufficient_credits: the balance' },
    credits_remaining: { type: 'integer', minimum: 0, maximum: 0, description: 'no_credits: always 0' },
    required_scope: { type: 'string', description: 'insufficient_scope: the scope the operation needs' },
    fidelity: {
      type: 'number',
      minimum: 0,
      maximum: 1,
      description: 'structure_changed: the best fidelity score the engine reached (below FIDELITY_MIN)',
    },
    changes: {
      type: 'array',
      description:
        'structure_changed: what changed in that drawing and where (docs/api/fidelity.md); box is [x, y, width, height] in the photo’s pixels',
      items: {
        type: 'object',
        required: ['kind', 'box'],
        properties: {
          kind: { type: 'string', enum: [...CHANGE_KINDS] },
          box: { type: 'array', items: { type: 'integer' }, minItems: 4, maxItems: 4 },
        },
      },
    },
    required_roles: {
      type: 'array',
      items: { type: 'string', enum: [...ROLES] },
      description: 'forbidden (a role that may not): the roles that may call the operation',
    },
  },
};

/** When each code is answered, for the response descriptions; a code missing here is described by its text. */
const WHEN: Partial<Record<ErrorCode, string>> = {
  invalid_request: 'the body, query or path is malformed or fails validation (`details` names the fields)',
  authentication_required: 'the credential is missing, unknown, revoked or of the other kind',
  otp_required: 'two-factor sign-in is on: repeat the call with `otp` (or `recovery_code`); no token was issued',
  email_unverified: 'the account’s e-mail address is not confirmed yet (POST /api/v1/auth/verify-email)',
  insufficient_scope: 'the API key’s scopes do not include this operation (extra `required_scope`)',
  account_suspended: 'an operator suspended the account: none of its keys or sessions works until it is restored',
  two_factor_required:
    'the account requires two-factor sign-in of its members and the signed-in user has not turned it on (POST /api/v1/me/2fa/setup, then /api/v1/me/2fa/enable)',
  insufficient_credits: 'the balance is below the cost (extra `credits_required`, `credits_available`)',
  no_credits: 'the balance is 0 and auto top-up could not add credits (extra `credits_remaining: 0`)',
  forbidden:
    'the signed-in user’s role in the account may not call the operation (extra `required_roles`), or a state-changing call that only the dashboard session cookie authenticates came from another site',
  not_found: 'the id or code does not exist or belongs to another account',
  conflict: 'the current state forbids the action',
  claim_already_redeemed: 'the claim was redeemed already',
  payment_method_required: 'enabling auto top-up needs a card on file',
  webhook_not_configured: 'the webhook has no url yet',
  claim_expired: 'the claim is older than 30 days',
  payload_too_large: 'the body or one image is over its limit',
  unsupported_media_type: 'the Content-Type or the image format is not accepted',
  invalid_image: 'the bytes are not a decodable image, or its size is out of range',
  unsupported_option: 'the running engine cannot do what the request asks (`option` names it); nothing was charged',
  engine_rejected: 'the staging engine refused the image (a content policy); the credits were refunded',
  not_a_room:
    'the picture does not look like a photo of a room (a texture, a pattern, a printed page, an animal); `image_index` names which of several; nothing was charged',
  structure_changed:
    'the engine changed the building (walls, windows, doors, the view) even when drawn again; extra `fidelity` and `changes` (what changed, where); the credits were refunded and nothing was stored',
  rate_limited: 'over a rate limit; retry after `Retry-After` seconds',
  internal_error: 'a fault on our side, logged; the body never carries its details',
  service_unavailable: 'the server is busy or the request ran too long (credits refunded); retry shortly',
  engine_unavailable: 'the staging engine is unavailable (credits refunded); retry after `Retry-After` seconds',
};

const RETRY_AFTER = {
  'Retry-After': {
    description: 'Seconds to wait before retrying (when known)',
    schema: { type: 'integer', minimum: 0 },
  },
};

const BODY_METHODS = new Set(['post', 'put', 'patch']);

/**
 * The error codes an operation can answer: malformed input and our own faults anywhere; body limits and media types
 * where a body is read; the cross-site check on state-changing calls; credential and rate-limit failures where a
 * credential is needed (an operator endpoint hides them behind its 404); the role and two-factor checks of Token
 * operations; then what the procedure's builder and the procedure itself declare.
 */
export function errorCodesOf(meta: Meta, method: string): ErrorCode[] {
  const codes: ErrorCode[] = ['invalid_request'];
  if (BODY_METHODS.has(method)) codes.push('payload_too_large', 'unsupported_media_type');
  if (method !== 'get') codes.push('forbidden');
  // An operator endpoint answers every credential failure as the unknown-path 404 (it must look nonexistent).
  const auth = meta.auth ?? 'none';
  if (auth !== 'none' && auth !== 'operator') codes.push('authentication_required', 'rate_limited');
  // A suspended account refuses its keys and every Token operation but the user's own things (switching to another
  // account, signing out), as does an account that requires two-factor sign-in of a member without it.
  if (auth === 'apiKey' || (meta.permission && meta.permission !== 'user')) codes.push('account_suspended');
  if (meta.scope) codes.push('insufficient_scope');
  if (meta.permission && rolesFor(meta.permission).length < ROLES.length) codes.push('forbidden');
  if (meta.permission && meta.permission !== 'user') codes.push('two_factor_required');
  codes.push(...(meta.builderErrors ?? []), ...(meta.errors ?? []), 'internal_error');
  return [...new Set(codes)];
}

type Responses = Record<string, unknown>;

/**
 * One response per status, listing exactly the codes the operation can answer with it. Each distinct response is a
 * shared component named by its codes (`Error.not_found`), so operations that answer alike point to one definition.
 */
export function errorResponsesOf(codes: readonly ErrorCode[], components: Responses): Responses {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes) {
    const { status } = ERROR_CATALOG[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const responses: Responses = {};
  for (const [status, statusCodes] of [...byStatus].sort(([a], [b]) => a - b)) {
    const name = `${ERROR_SCHEMA_NAME}.${statusCodes.join('.')}`;
    const reasons = statusCodes.map((code) => `- \`${code}\`: ${WHEN[code] ?? ERROR_CATALOG[code].error}`);
    components[name] ??= {
      description: `${STATUS_CODES[status]}:\n${reasons.join('\n')}`,
      ...(status === 429 || status === 503 ? { headers: RETRY_AFTER } : {}),
      content: {
        'application/json': {
          schema: {
            allOf: [
              { $ref: ERROR_REF },
              { type: 'object', required: ['code'], properties: { code: { type: 'string', enum: statusCodes } } },
            ],
          },
        },
      },
    };
    responses[String(status)] = { $ref: `#/components/responses/${name}` };
  }
  return responses;
}

type Operation = { responses?: Record<string, unknown> };

/**
 * The generator documents the bridge's own error shape `{message, code: <tRPC code>, issues}` for a few statuses;
 * the API answers the catalog's bodies (see rewriteBridgeErrors) instead. So only the success responses are kept
 * (200 renumbered to the procedure's `successStatus`), followed by the operation's real error responses.
 */
export function describeErrors(operation: Operation, meta: Meta, method: string, components: Responses): void {
  const responses: Responses = {};
  for (const [status, response] of Object.entries(operation.responses ?? {})) {
    if (!/^2\d\d$/.test(status)) continue;
    responses[status === '200' ? String(meta.successStatus ?? 200) : status] = response;
  }
  operation.responses = { ...responses, ...errorResponsesOf(errorCodesOf(meta, method), components) };
}

/** The generator's schemas of its own error shape give way to the one error body and the error responses. */
export function withErrorComponents(document: OpenAPIObject, responses: Responses): OpenAPIObject {
  const schemas = Object.fromEntries(
    Object.entries(document.components?.schemas ?? {}).filter(([name]) => !name.startsWith('error.')),
  );
  const sorted = Object.fromEntries(Object.entries(responses).sort(([a], [b]) => a.localeCompare(b)));
  document.components = {
    ...document.components,
    schemas: { ...schemas, [ERROR_SCHEMA_NAME]: ERROR_SCHEMA } as never,
    responses: { ...document.components?.responses, ...sorted } as never,
  };
  return document;
}
