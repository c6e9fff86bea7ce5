import type { OpenAPIObject } from 'trpc-to-openapi';
import { ERROR_CATALOG } from '../errors.js';

const ERROR_SCHEMA_NAME = 'Error';

/** CONTRACT §1: every error body, whatever the status. */
const ERROR_SCHEMA = {
  type: 'object',
  description: 'Every error is this JSON body (CONTRACT §1); some codes add the fields below.',
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
    credits_required: { type: 'integer', description: 'insufficient_credits: what the request costs' },
    credits_available: { type: 'integer', description: 'insufficient_credits: the balance' },
    credits_remaining: { type: 'integer', description: 'no_credits: always 0' },
  },
};

const ERROR_RESPONSE = {
  description:
    'Error: see `code` (400 invalid_request, 401, 402, 404, 409, 410, 413, 415, 422, 429 with Retry-After, 500)',
  content: { 'application/json': { schema: { $ref: `#/components/schemas/${ERROR_SCHEMA_NAME}` } } },
};

type Responses = Record<string, unknown>;

/**
 * The generator documents the bridge's own error shape `{message, code: <tRPC code>, issues}` for a few statuses;
 * the API answers CONTRACT §1 bodies (see rewriteBridgeErrors) for many more. So every operation gets one `default`
 * error response with the real body, and `successStatus` from the procedure's meta replaces the generator's 200.
 */
export function describeErrors(document: OpenAPIObject, successStatuses: ReadonlyMap<string, number>): OpenAPIObject {
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    for (const [method, operation] of Object.entries(item as Record<string, { responses?: Responses }>)) {
      if (!operation?.responses) continue;
      const responses: Responses = {};
      for (const [status, response] of Object.entries(operation.responses)) {
        if (!/^2\d\d$/.test(status)) continue;
        responses[status === '200' ? String(successStatuses.get(`${method} ${path}`) ?? 200) : status] = response;
      }
      responses.default = ERROR_RESPONSE;
      operation.responses = responses;
    }
  }
  const schemas = Object.fromEntries(
    Object.entries(document.components?.schemas ?? {}).filter(([name]) => !name.startsWith('error.')),
  );
  document.components = { ...document.components, schemas: { ...schemas, [ERROR_SCHEMA_NAME]: ERROR_SCHEMA } as never };
  return document;
}
