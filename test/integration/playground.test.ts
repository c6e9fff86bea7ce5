import { expect, it } from 'vitest';
import { inTransaction } from '../../db/transaction.js';
import { SESSION_COOKIE_NAME } from '../../server/auth/lucia.js';
import { changeCredits } from '../../server/domain/credits/ledger.js';
import { createKey, signUp, signUpWithKey } from '../fixtures/api-client.js';
import { describeEachDatabase } from '../helpers/each-database.js';
import { imageForm, roomJpeg, textFile } from '../fixtures/images.js';
import { creditsOf, useImagingServer } from '../helpers/staging.js';

/** The dashboard's playground, posted as its form would be: the same staging operation and charge as POST /stage. */
describeEachDatabase('Dashboard playground', (dialect) => {
  const server = useImagingServer(dialect);

  const asSession = (token: string) => ({ cookie: `${SESSION_COOKIE_NAME}=${token}`, origin: server.url });

  async function stageInPlayground(
    token: string,
    fields: Record<string, string>,
    photo?: { data: Buffer; type?: string },
  ) {
    const form = imageForm(photo ? [photo] : [], fields, 'photo');
    const response = await fetch(new URL('/playground', server.url), {
      method: 'POST',
      headers: asSession(token),
      body: form,
      redirect: 'manual',
    });
    return { status: response.status, html: (await response.text()).replace(/<!-- -->/g, '') };
  }

  const issuedClaims = async (token: string) =>
    (await server.api.get('/api/v1/claims?role=issued', { token })).body.claims as { claim_code: string }[];

  it('stages a sample through the chosen key like POST /stage: one credit, a claim and staging.complete for that key', async () => {
    const studio = await signUpWithKey(server.api);
    const second = await createKey(server.api, studio.token, { name: 'Second' });
    await server.api.put(`/api/v1/keys/${second.id}/webhook`, {
      token: studio.token,
      json: { url: 'http://127.0.0.1:9/hooks', enabled: true },
    });

    const result = await stageInPlayground(studio.token, {
      source: 'sample',
      sample: 'empty-living-room',
      style: 'industrial',
      room_type: 'office',
      key_id: String(second.id),
    });
    expect(result.status).toBe(200);
    expect(result.html).toContain('1 credit spent; 9 left');
    const code = /RS-[0-9A-Z]{8}/.exec(result.html)?.[0];
    expect(code).toBeDefined();

    expect(await creditsOf(server.api, studio.key)).toBe(9);
    expect((await issuedClaims(studio.token)).map((claim) => claim.claim_code)).toEqual([code]);
    const deliveries = await server.api.get(`/api/v1/keys/${second.id}/webhook/deliveries`, { token: studio.token });
    expect(deliveries.body.deliveries.map((delivery: { event: string }) => delivery.event)).toEqual([
      'staging.complete',
    ]);
    // The snippets name the key the playground used, by its prefix only.
    expect(result.html).toContain(`Bearer ${second.prefix}…`);
    expect(result.html).not.toContain(second.key);
  });

  it('records the staging as a use of the chosen key, and stages the real sample photo', async () => {
    const studio = await signUpWithKey(server.api);
    const keyBefore = (await server.api.get('/api/v1/keys', { token: studio.token })).body.keys[0];
    expect(keyBefore.last_used_at).toBeNull();
    const result = await stageInPlayground(studio.token, {
      source: 'sample',
      sample: 'empty-room-photo',
      style: 'modern',
      room_type: 'living_room',
      key_id: String(studio.keyId),
    });
    expect(result.status).toBe(200);
    expect(result.html).toContain('1 credit spent; 9 left');
    // The key's use is written without making the request wait: it shows within moments.
    await expect
      .poll(async () => (await server.api.get('/api/v1/keys', { token: studio.token })).body.keys[0].last_used_at, {
        timeout: 5_000,
      })
      .not.toBeNull();
  });

  it('shows the original photo to the company that staged it and the agent who redeemed it, and to nobody else', async () => {
    const studio = await signUpWithKey(server.api);
    const result = await stageInPlayground(
      studio.token,
      { source: 'upload', style: 'modern', room_type: 'living_room', key_id: String(studio.keyId) },
      { data: await roomJpeg(640, 480) },
    );
    expect(result.status).toBe(200);
    const imageId = /\/originals\/(img_[0-9A-Za-z]+)/.exec(result.html)?.[1];
    expect(imageId).toBeDefined();
    const code = /RS-[0-9A-Z]{8}/.exec(result.html)![0];

    const original = (token?: string) =>
      fetch(new URL(`/originals/${imageId}`, server.url), { headers: token ? asSession(token) : {} });
    const own = await original(studio.token);
    expect(own.status).toBe(200);
    expect(own.headers.get('content-type')).toBe('image/jpeg');
    expect(
      Buffer.from(await own.arrayBuffer())
        .subarray(0, 2)
        .toString('hex'),
    ).toBe('ffd8');

    const agent = await signUp(server.api);
    expect((await original(agent.token)).status).toBe(404);
    expect((await server.api.post('/api/v1/claim', { token: agent.token, json: { code } })).status).toBe(200);
    expect((await original(agent.token)).status).toBe(200);

    const stranger = await signUp(server.api);
    expect((await original(stranger.token)).status).toBe(404);
    expect((await original()).status).toBe(401);
  });

  it('refuses what cannot be staged and spends nothing: not an image, no photo chosen, a revoked or foreign key', async () => {
    const studio = await signUpWithKey(server.api);
    const other = await signUpWithKey(server.api);
    const revoked = await createKey(server.api, studio.token, { name: 'Old' });
    await server.api.delete(`/api/v1/keys/${revoked.id}`, { token: studio.token });
    const base = { style: 'modern', room_type: 'living_room', key_id: String(studio.keyId) };

    const notImage = await stageInPlayground(
      studio.token,
      { ...base, source: 'upload' },
      { data: textFile(), type: 'text/plain' },
    );
    expect([415, 422]).toContain(notImage.status);
    const noPhoto = await stageInPlayground(studio.token, { ...base, source: 'upload' });
    expect(noPhoto.status).toBe(400);
    expect(noPhoto.html).toContain('Choose a photo to upload');
    const revokedKey = await stageInPlayground(studio.token, {
      ...base,
      source: 'sample',
      sample: 'empty-living-room',
      key_id: String(revoked.id),
    });
    expect(revokedKey.status).toBe(409);
    expect(revokedKey.html).toContain('is revoked');
    const foreignKey = await stageInPlayground(studio.token, {
      ...base,
      source: 'sample',
      sample: 'empty-living-room',
      key_id: String(other.keyId),
    });
    expect(foreignKey.status).toBe(404);
    const unknownStyle = await stageInPlayground(studio.token, {
      ...base,
      source: 'sample',
      sample: 'empty-living-room',
      style: 'gothic',
    });
    expect(unknownStyle.status).toBe(400);

    expect(await creditsOf(server.api, studio.key)).toBe(10);
    expect(await creditsOf(server.api, other.key)).toBe(10);
    expect(await issuedClaims(studio.token)).toEqual([]);
  });

  it('spends the last credit once when two playground requests race for it', async () => {
    const studio = await signUpWithKey(server.api);
    await inTransaction(server.services.db, (trx) =>
      changeCredits(trx, { accountId: studio.userId, delta: -9, reason: 'stage', now: server.clock.now() }),
    );
    const fields = {
      source: 'sample',
      sample: 'empty-living-room',
      style: 'modern',
      room_type: 'living_room',
      key_id: String(studio.keyId),
    };
    const results = await Promise.all([
      stageInPlayground(studio.token, fields),
      stageInPlayground(studio.token, fields),
    ]);
    expect(results.map((result) => result.status).sort()).toEqual([200, 402]);
    expect(await creditsOf(server.api, studio.key)).toBe(0);
    expect(await issuedClaims(studio.token)).toHaveLength(1);
  });

  it('offers variations and the disclosure profiles, but not declutter, and stages 2 variations for 2 credits', async () => {
    const studio = await signUpWithKey(server.api);
    const page = await fetch(new URL('/playground', server.url), { headers: asSession(studio.token) });
    const html = (await page.text()).replace(/<!-- -->/g, '');
    expect(html).toContain('name="variations"');
    expect(html).not.toContain('name="label"');
    for (const profile of ['none', 'label', 'caption', 'ca_ab723']) expect(html).toContain(`value="${profile}"`);
    expect(html).not.toContain('name="declutter"');

    const result = await stageInPlayground(studio.token, {
      source: 'sample',
      sample: 'empty-living-room',
      style: 'modern',
      room_type: 'living_room',
      key_id: String(studio.keyId),
      variations: '2',
      disclosure: 'ca_ab723',
    });
    expect(result.status).toBe(200);
    expect(result.html).toContain('2 credits spent; 8 left');
    expect(result.html).toContain('Variation 2');
    // Each image shows its fidelity score, and the caption of the chosen profile.
    expect(result.html.match(/fidelity (0\.9\d|1\.00) of 1/g)).toHaveLength(2);
    expect(result.html).toContain('Original photo: ');

    const refused = await stageInPlayground(studio.token, {
      source: 'sample',
      sample: 'empty-living-room',
      key_id: String(studio.keyId),
      disclosure: 'watermark',
    });
    expect(refused.status).toBe(400);
    expect(await creditsOf(server.api, studio.key)).toBe(8);
    expect(await creditsOf(server.api, studio.key)).toBe(8);
  });

  it('shows a staging company the running engine on the overview and saves the default disclosure there', async () => {
    // A staging company: an account with a key (a brand-new one is shown how to start instead).
    const { token } = await signUp(server.api);
    await createKey(server.api, token);
    const overview = async () =>
      (await (await fetch(new URL('/overview', server.url), { headers: asSession(token) })).text()).replace(
        /<!-- -->/g,
        '',
      );
    const before = await overview();
    expect(before).toContain('Staging engine');
    expect(before).toContain('Built-in');
    // The default a new account has: the caption with the original's link, which every market accepts.
    expect(before).toContain('Caption with a link to the original, no mark');
    const save = (body: string) =>
      fetch(new URL('/overview', server.url), {
        method: 'POST',
        headers: { ...asSession(token), 'content-type': 'application/x-www-form-urlencoded' },
        body,
        redirect: 'manual',
      });
    expect((await save('disclosure=label')).status).toBe(200);
    expect((await server.api.get('/api/v1/settings/staging', { token })).body).toEqual({
      disclosure: 'label',
      label: 'virtually_staged',
    });
    expect(await overview()).toContain('“Virtually staged” mark in a corner, and the caption');
    // Something the form does not offer is refused with a sentence and changes nothing.
    expect((await save('disclosure=watermark')).status).toBe(400);
    expect((await server.api.get('/api/v1/settings/staging', { token })).body.disclosure).toBe('label');
  });

  it('sends visitors without a session to sign in', async () => {
    const response = await fetch(new URL('/playground', server.url), { redirect: 'manual' });
    expect(response.status).toBe(302);
    expect(response.headers.get('location')).toContain('/login?redirectTo=%2Fplayground');
  });
});
