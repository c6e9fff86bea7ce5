import { readFileSync } from 'node:fs';
import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  createRoomstageClient,
  formData,
  isAcceptedJob,
  type RoomstageError,
} from '../../clients/typescript/client.js';
import { GENERATED_TYPES_PATH, generateTypeScriptTypes } from '../../scripts/generate-clients.js';
import { buildOpenApiDocument } from '../../server/http/openapi.js';
import { uniqueEmail, TEST_PASSWORD } from '../fixtures/api-client.js';
import { describeOnSqlite } from '../helpers/each-database.js';
import { roomJpeg } from '../fixtures/images.js';
import { useImagingServer } from '../helpers/staging.js';

describe('The generated TypeScript client', () => {
  it('is what `npm run clients` generates from the current OpenAPI document (run it after changing a procedure)', async () => {
    expect(await generateTypeScriptTypes()).toBe(readFileSync(GENERATED_TYPES_PATH, 'utf8'));
  });

  it('types every body without `any`: the document’s schemas are precise enough', () => {
    const code = readFileSync(GENERATED_TYPES_PATH, 'utf8').replace(/\/\*\*[\s\S]*?\*\//g, '');
    expect(code.match(/\bany\b/g)).toBeNull();
    // Responses are typed, not left open: the only open maps are the headers every response may carry.
    expect(code.replace(/\[name: string\]: unknown;/g, '').match(/\bunknown\b/g)).toBeNull();
  });
});

/** Why MySQL adds nothing here (docs/contributors/tests.md, which files run on both databases). */
const SQLITE_ONLY = 'the client; each call is tested on both databases by its endpoint';

describeOnSqlite('The spec’s typical flow through the generated TypeScript client', SQLITE_ONLY, (dialect) => {
  const server = useImagingServer(dialect);

  it('serves the same document the client was generated from', async () => {
    const served = (await server.api.get('/api/v1/openapi.json')).body;
    expect(served.paths).toEqual(buildOpenApiDocument('http://localhost:3000').paths);
  });

  it('signs up, creates a key, stages two photos by multipart, previews, redeems and reads the credits', async () => {
    const anonymous = createRoomstageClient({ baseUrl: server.url });
    const signup = await anonymous.POST('/api/v1/auth/signup', {
      body: { email: uniqueEmail('company'), password: TEST_PASSWORD },
    });
    expect(signup.response.status).toBe(201);
    const company = createRoomstageClient({ baseUrl: server.url, credential: signup.data!.token });
    const created = await company.POST('/api/v1/keys', { body: { name: 'Production', mode: 'live' } });
    expectTypeOf(created.data!.bonus_credits_granted).toEqualTypeOf<number>();
    expect(created.data).toMatchObject({
      name: 'Production',
      mode: 'live',
      status: 'active',
      bonus_credits_granted: 10,
    });

    const roomstage = createRoomstageClient({ baseUrl: server.url, credential: created.data!.key });
    const photos = [
      new File([new Uint8Array(await roomJpeg(900, 600))], 'kitchen.jpg', { type: 'image/jpeg' }),
      new File([new Uint8Array(await roomJpeg(400, 700))], 'hall.jpg', { type: 'image/jpeg' }),
    ];
    const staged = await roomstage.POST('/api/v1/stage', {
      body: { image: photos, style: 'scandinavian', room_type: 'kitchen' },
      bodySerializer: formData,
    });
    expect(staged.error).toBeUndefined();
    const stage = staged.data!;
    // Without `Prefer: respond-async` the answer is the result itself, never a job.
    if (isAcceptedJob(stage)) throw new Error(`unexpected job ${stage.job_id}`);
    expectTypeOf(stage.style).toEqualTypeOf<
      | 'modern'
      | 'scandinavian'
      | 'industrial'
      | 'minimalist'
      | 'mid_century'
      | 'coastal'
      | 'farmhouse'
      | 'luxury'
      | 'bohemian'
      | 'traditional'
    >();
    expect(stage).toMatchObject({
      success: true,
      style: 'scandinavian',
      room_type: 'kitchen',
      credits_used: 2,
      credits_remaining: 8,
    });
    expect(stage.images.map((image) => [image.width, image.height])).toEqual([
      [900, 600],
      [400, 700],
    ]);

    const agentSignup = await anonymous.POST('/api/v1/auth/signup', {
      body: { email: uniqueEmail('agent'), password: TEST_PASSWORD },
    });
    const agent = createRoomstageClient({ baseUrl: server.url, credential: agentSignup.data!.token });
    const preview = await agent.POST('/api/v1/claim/preview', { body: { code: stage.claim_code } });
    expect(preview.data).toMatchObject({
      valid: true,
      code: stage.claim_code,
      status: 'unredeemed',
      image_count: 2,
      is_claimed: false,
    });
    const redeemed = await agent.POST('/api/v1/claim', { body: { code: stage.claim_code } });
    expect(redeemed.data).toMatchObject({ claim_code: stage.claim_code, status: 'redeemed', image_count: 2 });
    expect(redeemed.data!.images.map((image) => image.id).sort()).toEqual(stage.images.map((image) => image.id).sort());

    const again = await agent.POST('/api/v1/claim', { body: { code: stage.claim_code } });
    expectTypeOf(again.error).toExtend<RoomstageError | undefined>();
    // The error's `code` is typed as exactly the codes the operation documents.
    expectTypeOf<NonNullable<typeof again.error>['code']>().toEqualTypeOf<
      | 'invalid_request'
      | 'authentication_required'
      | 'forbidden'
      | 'account_suspended'
      | 'two_factor_required'
      | 'not_found'
      | 'claim_already_redeemed'
      | 'claim_expired'
      | 'payload_too_large'
      | 'unsupported_media_type'
      | 'rate_limited'
      | 'internal_error'
    >();
    expect(again.response.status).toBe(409);
    expect(again.error).toMatchObject({
      error: 'claim already redeemed',
      code: 'claim_already_redeemed',
      message: expect.any(String),
    });

    const credits = await roomstage.GET('/api/v1/credits');
    expect(credits.data).toMatchObject({ credits: 8, has_payment_method: false, total_purchased: 0, total_used: 2 });
  });

  it('sends a JSON body with a base64 image through the same typed call', async () => {
    const signup = await createRoomstageClient({ baseUrl: server.url }).POST('/api/v1/auth/signup', {
      body: { email: uniqueEmail(), password: TEST_PASSWORD },
    });
    const key = await createRoomstageClient({ baseUrl: server.url, credential: signup.data!.token }).POST(
      '/api/v1/keys',
      { body: {} },
    );
    const roomstage = createRoomstageClient({ baseUrl: server.url, credential: key.data!.key });
    const enhanced = await roomstage.POST('/api/v1/enhance', {
      body: { image: (await roomJpeg(800, 600)).toString('base64') },
    });
    expect(enhanced.data).toMatchObject({
      success: true,
      width: 3840,
      height: 2880,
      credits_used: 1,
      credits_remaining: 9,
    });
    const refused = await roomstage.POST('/api/v1/enhance', { body: { image: 'bm90IGFuIGltYWdl' } });
    expect(refused.error?.code).toBe('invalid_image');
  });
});
