import sharp from 'sharp';
import { type ApiClient, signUp, signUpWithKey } from './api-client.js';
import { onServer, roomJpeg } from './images.js';

/** A sofa cut-out: an opaque shape on transparent pixels, as advertisers upload them. */
export async function sofaPng(width = 600, height = 360): Promise<Buffer> {
  const shape = Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><rect x="20" y="60" width="${width - 40}" height="${height - 80}" rx="30" fill="#7a5c3e"/></svg>`,
  );
  return sharp({ create: { width, height, channels: 4, background: { r: 255, g: 255, b: 255, alpha: 0 } } })
    .composite([{ input: shape }])
    .png()
    .toBuffer();
}

/**
 * A staging company stages a room into a claim and places products in it; an agent (a new one, or `agentToken`)
 * redeems the claim unless `redeem` is false. Returns the placed image's path on the server.
 */
export async function placedListing(api: ApiClient, options: { redeem?: boolean; agentToken?: string } = {}) {
  const company = await signUpWithKey(api);
  const photo = await roomJpeg(1000, 700);
  const staged = await api.post('/api/v1/stage', { token: company.key, json: { image: photo.toString('base64') } });
  if (staged.status !== 200) throw new Error(`stage: ${staged.status} ${staged.text}`);
  const placed = await api.post('/api/v1/place-products', {
    token: company.key,
    json: { image_id: staged.body.images[0].id, claim_code: staged.body.claim_code, max_products: 3 },
  });
  if (placed.status !== 200) throw new Error(`place-products: ${placed.status} ${placed.text}`);
  const agentToken = options.agentToken ?? (await signUp(api)).token;
  if (options.redeem !== false) {
    const redeemed = await api.post('/api/v1/claim', { token: agentToken, json: { code: staged.body.claim_code } });
    if (redeemed.status !== 200) throw new Error(`claim: ${redeemed.status} ${redeemed.text}`);
  }
  return {
    placements: placed.body.placements as Array<{ campaign_id: string | null; sponsored: boolean }>,
    imagePath: onServer(placed.body.image_url),
  };
}

/** Loads `path` once per viewer (each its own User-Agent, so each counts as a distinct viewer). */
export async function serveToViewers(baseUrl: string, path: string, viewers: string[]): Promise<number[]> {
  return Promise.all(
    viewers.map(async (viewer) => {
      const response = await fetch(new URL(path, baseUrl), { headers: { 'user-agent': viewer } });
      await response.arrayBuffer();
      return response.status;
    }),
  );
}
