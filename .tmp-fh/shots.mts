// Usage: tsx shots.mts <base> <label> <photo> <product.png> <docs page>
import { readFileSync, writeFileSync } from 'node:fs';
import { chromium } from 'playwright-core';
const [base, label, photoPath, productPath, docsPage] = process.argv.slice(2) as [string, string, string, string, string];
const OUT = '/work/screens/first-hour';
const PASSWORD = 'a long screenshot password';
const run = Date.now().toString(36);
async function call(method: string, path: string, token: string | null, body?: unknown) {
  const r = await fetch(`${base}${path}`, { method, headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) }, body: body === undefined ? undefined : JSON.stringify(body) });
  const j = (await r.json().catch(() => ({}))) as any;
  if (!r.ok) throw new Error(`${method} ${path}: ${r.status} ${JSON.stringify(j)}`);
  return j;
}
const signup = (who: string) => call('POST', '/api/v1/auth/signup', null, { email: `${who}-${run}@example.com`, password: PASSWORD });
const photo = readFileSync(photoPath).toString('base64');
const studio = await signup('studio');
const key = await call('POST', '/api/v1/keys', studio.token, { name: 'My first key' });
const staged = await call('POST', '/api/v1/stage', key.key, { image: photo, style: 'scandinavian', room_type: 'living_room' });
const img = await fetch(staged.images[0].image_url.replace(/^https?:\/\/[^/]+/, base));
writeFileSync(`${OUT}/${label}-first-request-staged.jpg`, Buffer.from(await img.arrayBuffer()));
console.log('staged fidelity', staged.images[0].fidelity, staged.claim_code);
const agent = await signup('agent');
await call('POST', '/api/v1/claim', agent.token, { code: staged.claim_code });
const brand = await signup('brand');
const form = new FormData();
form.append('image', new Blob([readFileSync(productPath)], { type: 'image/png' }), 'chair.png');
for (const [k, v] of [['name', 'Hollis lounge chair'], ['brand', 'Acme'], ['category', 'armchair'], ['room_types', 'living_room']]) form.append(k!, v!);
const r = await fetch(`${base}/api/v1/ads/products`, { method: 'POST', headers: { authorization: `Bearer ${brand.token}` }, body: form });
console.log('product', r.status, r.status >= 300 ? await r.text() : '');
await signup('new');
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--headless', '--disable-gpu'] });
for (const [kind, who] of [['company', 'studio'], ['agent', 'agent'], ['advertiser', 'brand'], ['brand-new', 'new']] as const) {
  for (const width of [1280, 390]) {
    const page = await browser.newPage({ viewport: { width, height: 900 } });
    await page.goto(`${base}/login`);
    await page.getByLabel('E-mail').fill(`${who}-${run}@example.com`);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: /sign in/i }).click();
    await page.waitForURL(/overview|claims/);
    await page.goto(`${base}/overview`);
    await page.screenshot({ path: `${OUT}/${label}-overview-${kind}-${width}.png`, fullPage: true });
    await page.close();
  }
}
for (const width of [1280, 390]) {
  const page = await browser.newPage({ viewport: { width, height: 900 } });
  await page.goto(`${base}/docs/${docsPage}`);
  const params = page.locator('h3', { hasText: 'Parameters' }).first();
  if (await params.count()) await params.scrollIntoViewIfNeeded();
  await page.screenshot({ path: `${OUT}/${label}-docs-operation-${width}.png`, fullPage: false });
  await page.close();
}
await browser.close();
