/**
 * Roomstage from TypeScript over tRPC: the same procedures as the REST API, typed end to end by the exported
 * `AppRouter` type (a type-only import: no server code reaches your bundle). Authenticate exactly as on REST, with
 * `Authorization: Bearer <credential>`: an API key for the image and credit procedures, an identity token for the
 * account, key and claim procedures. Images travel as base64 in `image` / `images` (tRPC speaks JSON).
 *
 * Run it against a local server: `npx tsx clients/trpc/example.ts http://localhost:3000 sk_live_… room.jpg`
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createTRPCClient, httpBatchLink, TRPCClientError } from '@trpc/client';
import type { AppRouter } from '../../server/root.js';

/** One client per credential; calls made in the same tick travel in one batched HTTP request to /trpc. */
export function createRoomstageTrpcClient(baseUrl: string, credential?: string) {
  return createTRPCClient<AppRouter>({
    links: [
      httpBatchLink({
        url: `${baseUrl}/trpc`,
        headers: () => (credential ? { authorization: `Bearer ${credential}` } : {}),
      }),
    ],
  });
}

/** A failed call's JSON error body (`error`, `code`, `message`, …, as REST answers it), which tRPC carries under `data.contract`. */
export function contractError(error: unknown): { error: string; code: string; message: string } | null {
  if (!(error instanceof TRPCClientError)) return null;
  return (
    (error.data as { contract?: { body: { error: string; code: string; message: string } } } | undefined)?.contract
      ?.body ?? null
  );
}

/** Stages one photo with an API key and reads the balance: what a staging company's integration does. */
export async function stageWithApiKey(baseUrl: string, apiKey: string, photo: Buffer) {
  const roomstage = createRoomstageTrpcClient(baseUrl, apiKey);
  const staged = await roomstage.staging.stage.mutate({
    images: [photo.toString('base64')],
    style: 'scandinavian',
    room_type: 'living_room',
  });
  // Without `Prefer: respond-async` the answer is the staged result, never a job.
  if (!('claim_code' in staged)) throw new Error(`unexpected asynchronous answer: job ${staged.job_id}`);
  const { credits } = await roomstage.credits.balance.query();
  return { claimCode: staged.claim_code, imageUrl: staged.image_url, credits };
}

async function main() {
  const [baseUrl, apiKey, photoPath] = process.argv.slice(2);
  if (!baseUrl || !apiKey || !photoPath)
    throw new Error('usage: tsx clients/trpc/example.ts <base_url> <api_key> <photo>');
  try {
    console.log(await stageWithApiKey(baseUrl, apiKey, readFileSync(photoPath)));
  } catch (error) {
    const body = contractError(error);
    if (!body) throw error;
    console.error(`${body.code}: ${body.message}`);
    process.exitCode = 1;
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) void main();
