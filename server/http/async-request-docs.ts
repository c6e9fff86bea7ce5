import type { OpenAPIObject } from 'trpc-to-openapi';
import { IMAGE_UPLOAD_PATHS } from './image-upload.js';

type Operation = { responses?: Record<string, unknown>; parameters?: unknown[] };
type JsonResponse = { description?: string; content?: { 'application/json'?: { schema?: { anyOf?: unknown[] } } } };

const ACCEPTED_JOB_REF = '#/components/schemas/AcceptedJob';

const REQUEST_HEADERS = [
  {
    name: 'Prefer',
    in: 'header',
    required: false,
    description:
      '`respond-async`: validate and charge now, answer 202 with a job at once, and let a worker do the work; poll ' +
      '`status_url` (GET /api/v1/jobs/{id}). The answer then carries `Preference-Applied: respond-async`.',
    schema: { type: 'string', example: 'respond-async' },
  },
  {
    name: 'Idempotency-Key',
    in: 'header',
    required: false,
    description:
      '1–255 printable characters, scoped to the API key, kept 24 hours. A repeat of the same request returns the first ' +
      'response again (header `Idempotent-Replayed: true`, no second charge; for an asynchronous request, the same 202); ' +
      'the same key with another request, or while the first still runs, is 409 `conflict`.',
    schema: { type: 'string', minLength: 1, maxLength: 255 },
  },
];

/**
 * The image endpoints answer 200 with their result, or 202 with a job under `Prefer: respond-async`. The procedure's
 * output is one union of both; the document splits it into the two statuses and names the request headers.
 */
export function describeAsyncRequests(document: OpenAPIObject): OpenAPIObject {
  for (const path of IMAGE_UPLOAD_PATHS) {
    const operation = document.paths?.[path]?.post as Operation | undefined;
    const ok = operation?.responses?.['200'] as JsonResponse | undefined;
    const schema = ok?.content?.['application/json']?.schema;
    if (!operation?.responses || !schema?.anyOf) continue;
    const accepted = schema.anyOf.find((item) => (item as { $ref?: string }).$ref === ACCEPTED_JOB_REF);
    const results = schema.anyOf.filter((item) => item !== accepted);
    if (!accepted || results.length !== 1) continue;
    operation.responses['200'] = { ...ok, content: { 'application/json': { schema: results[0] } } };
    operation.responses['202'] = {
      description: 'Accepted (with `Prefer: respond-async`): the request is charged and queued; poll `status_url`',
      headers: { 'Preference-Applied': { description: 'respond-async', schema: { type: 'string' } } },
      content: { 'application/json': { schema: accepted } },
    };
    operation.parameters = [...(operation.parameters ?? []), ...REQUEST_HEADERS];
  }
  return document;
}
