import { chromium } from 'playwright-core';
const base = 'http://127.0.0.1:3902';
const [label, ...paths] = process.argv.slice(2);
const email = `pages-${Date.now().toString(36)}@example.com`;
await fetch(`${base}/api/v1/auth/signup`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password: 'a long screenshot password' }) }).then(async (r) => {
  const { token } = (await r.json()) as { token: string };
  await fetch(`${base}/api/v1/keys`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify({ name: 'My first key' }) });
});
const b = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--headless'] });
for (const width of [1280, 390]) {
  const p = await b.newPage({ viewport: { width, height: 900 } });
  await p.goto(`${base}/login`);
  await p.getByLabel('E-mail').fill(email); await p.getByLabel('Password').fill('a long screenshot password');
  await p.getByRole('button', { name: /sign in/i }).click(); await p.waitForURL(/overview/);
  for (const path of paths) { await p.goto(`${base}${path}`); await p.screenshot({ path: `/work/screens/first-hour/${label}-${path.replace(/\W+/g, '-').replace(/^-/, '')}-${width}.png`, fullPage: true }); }
  await p.close();
}
await b.close();
