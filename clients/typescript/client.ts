/**
 * The typed Roomstage REST client: openapi-fetch over the types that `npm run clients` generates from
 * /api/v1/openapi.json into ./schema.ts. Every path, body, query and response is typed from the API's own schemas.
 *
 *   const roomstage = createRoomstageClient({ baseUrl: 'https://roomstage.example', credential: process.env.ROOMSTAGE_API_KEY });
 *   const { data, error } = await roomstage.POST('/api/v1/stage', { body: { image: [photo], style: 'modern' }, bodySerializer: formData });
 *   if (error) throw new Error(`${error.code}: ${error.message}`);
 *   if (isAcceptedJob(data)) throw new Error('asked for a synchronous answer');
 *   console.log(data.claim_code, data.image_url);
 */
import createClient, { type Client } from 'openapi-fetch';
import type { components, paths } from './schema.js';

export type { components, paths };
export type RoomstageClient = Client<paths>;
/** Every error body is `{ error, code, message, … }`: branch on `code`. */
export type RoomstageError = components['schemas']['Error'];
/** The 202 answer of an image endpoint called with `Prefer: respond-async`: poll `status_url` (GET /api/v1/jobs/{id}). */
export type AcceptedJob = components['schemas']['AcceptedJob'];

/** The image endpoints answer 200 with their result, or 202 with a job when asked to; this tells the two apart. */
export function isAcceptedJob<T extends object>(data: T | AcceptedJob): data is AcceptedJob {
  return 'job_id' in data && 'status_url' in data;
}

export interface RoomstageClientOptions {
  /** Where the API runs, without /api/v1 (the paths carry it), e.g. https://roomstage.example */
  baseUrl: string;
  /** An API key (sk_live_… / sk_test_…) for Key endpoints, or an identity token for Token endpoints. */
  credential?: string;
  fetch?: typeof fetch;
}

export function createRoomstageClient({ baseUrl, credential, fetch }: RoomstageClientOptions): RoomstageClient {
  return createClient<paths>({ baseUrl, fetch, headers: credential ? { Authorization: `Bearer ${credential}` } : {} });
}

/**
 * `bodySerializer` for the image endpoints' multipart form: Blobs (files) become file fields, an array repeats its
 * field (several `image` files for stage), everything else is sent as text.
 */
export function formData(body: Record<string, unknown> | undefined): FormData {
  const form = new FormData();
  for (const [name, value] of Object.entries(body ?? {})) {
    for (const item of Array.isArray(value) ? value : [value]) {
      if (item === undefined || item === null) continue;
      if (item instanceof Blob) form.append(name, item, item instanceof File ? item.name : `${name}.bin`);
      else form.append(name, String(item));
    }
  }
  return form;
}
