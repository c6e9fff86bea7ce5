import { expect, it } from 'vitest';
import { inTransaction } from '../../db/transaction.js';
import { changeCredits } from '../../server/domain/credits/ledger.js';
import { signUp, signUpWithKey } from '../fixtures/api-client.js';
import { dashboardPage } from '../helpers/dashboard-page.js';
import { describeEachDatabase } from '../helpers/each-database.js';
import { imageForm, roomJpeg } from '../fixtures/images.js';
import { useImagingServer } from '../helpers/staging.js';

/** The dashboard pages an agent uses, driven as a browser without JavaScript would: plain form posts. */
describeEachDatabase('Agent dashboard: redeeming a claim and the gallery', (dialect) => {
  const server = useImagingServer(dialect);

  const page = (path: string, token: string, form?: Record<string, string>) =>
    dashboardPage(server.url, path, token, form);

  it('previews a code, redeems it, and shows the images with download links and earnings', async () => {
    const issuer = await signUpWithKey(server.api);
    const staged = await server.api.post('/api/v1/stage', {
      token: issuer.key,
      body: imageForm([{ data: await roomJpeg(400, 300) }, { data: await roomJpeg(400, 300) }]),
    });
    const code = staged.body.claim_code as string;
    const agent = await signUp(server.api);

    const preview = await page('/claims', agent.token, { intent: 'preview', code: code.toLowerCase() });
    expect(preview.status).toBe(200);
    expect(preview.html).toContain('Ready to redeem');
    expect(preview.html).toContain('Redeem 2 images');

    const redeemed = await page('/claims', agent.token, { intent: 'redeem', code });
    expect(redeemed.status).toBe(200);
    expect(redeemed.html).toContain(`Claim ${code} redeemed`);

    const again = await page('/claims', agent.token, { intent: 'redeem', code });
    expect(again.status).toBe(409);
    expect(again.html).toContain('already been redeemed');

    const unknown = await page('/claims', agent.token, { intent: 'preview', code: 'RS-00000000' });
    expect(unknown.status).toBe(404);
    expect(unknown.html).toContain('No claim has this code');

    const gallery = await page('/gallery', agent.token);
    expect(gallery.status).toBe(200);
    expect(gallery.html).toContain('2 images');
    for (const image of staged.body.images) expect(gallery.html).toContain(image.image_url);
    expect(gallery.html.match(/Download full size/g)).toHaveLength(2);
    // Staged images are shown beside the photo they were drawn on.
    for (const image of staged.body.images) expect(gallery.html).toContain(`/originals/${image.id}`);
    expect(gallery.html).toContain('Your share (50 %)');
  });

  it('pages the gallery twelve images at a time, every image on exactly one page', async () => {
    const issuer = await signUpWithKey(server.api);
    // Thirteen images need more than the ten free credits.
    await inTransaction(server.services.db, (trx) =>
      changeCredits(trx, { accountId: issuer.userId, delta: 5, reason: 'purchase', now: server.clock.now() }),
    );
    const photo = await roomJpeg(320, 240);
    const stage = async (count: number) => {
      const staged = await server.api.post('/api/v1/stage', {
        token: issuer.key,
        body: imageForm(Array.from({ length: count }, () => ({ data: photo }))),
      });
      expect(staged.status).toBe(200);
      return staged.body as { claim_code: string; images: { id: string }[] };
    };
    const older = await stage(10);
    const newer = await stage(3);
    const agent = await signUp(server.api);
    for (const code of [older.claim_code, newer.claim_code])
      expect((await server.api.post('/api/v1/claim', { token: agent.token, json: { code } })).status).toBe(200);

    const first = await page('/gallery', agent.token);
    expect(first.html).toContain('13 images');
    expect(first.html).toContain('Page 1 of 2');
    expect(first.html.match(/Download full size/g)).toHaveLength(12);
    const second = await page('/gallery?page=2', agent.token);
    expect(second.html).toContain('Page 2 of 2');
    expect(second.html.match(/Download full size/g)).toHaveLength(1);
    const shown = (html: string) =>
      new Set([...html.matchAll(/\/originals\/(img_[0-9A-Za-z]+)/g)].map((match) => match[1]));
    const ids = [...older.images, ...newer.images].map((image) => image.id).sort();
    expect([...shown(first.html), ...shown(second.html)].sort()).toEqual(ids);
    const past = await page('/gallery?page=9', agent.token);
    expect(past.status).toBe(200);
    expect(past.html).toContain('past the last image');
  });

  it('sends visitors without a session to sign in', async () => {
    const response = await fetch(new URL('/gallery', server.url), { redirect: 'manual' });
    expect(response.status).toBe(302);
    expect(response.headers.get('location')).toContain('/login?redirectTo=%2Fgallery');
  });
});
