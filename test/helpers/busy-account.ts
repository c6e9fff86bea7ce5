import { expect } from 'vitest';
import { signUpWithKey } from '../fixtures/api-client.js';
import { dataUrl, roomJpeg } from '../fixtures/images.js';
import type { TestServer } from './server.js';
import { confirmEmailOf } from '../fixtures/mail.js';

/** An account that has done a bit of everything (staged, claimed, bought credits), so no page shows only its empty state. */
export async function busyAccount(server: TestServer): Promise<Awaited<ReturnType<typeof signUpWithKey>>> {
  const account = await signUpWithKey(server.api);
  const staged = await server.api.post('/api/v1/stage', {
    token: account.key,
    json: { image: dataUrl(await roomJpeg(900, 600)), style: 'modern' },
  });
  expect(staged.status).toBe(200);
  expect(
    (await server.api.post('/api/v1/claim', { token: account.token, json: { code: staged.body.claim_code } })).status,
  ).toBe(200);
  await confirmEmailOf(server, account.token);
  const checkout = await server.api.post('/api/v1/billing/checkout', { token: account.token, json: { credits: 50 } });
  expect(checkout.status).toBe(200);
  expect((await fetch(checkout.body.checkout_url)).status).toBe(200);
  return account;
}
