import { chromium } from 'playwright-core';
const b = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--headless'] });
const p = await b.newPage({ viewport: { width: 1280, height: 900 } });
await p.goto('http://127.0.0.1:3902/docs/images');
console.log(await p.locator('main tbody td').evaluateAll((cells) => cells.filter((c) => /^\S+$/.test(c.textContent?.trim() ?? '')).slice(0, 3).map((cell) => {
  const w = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT); const out: unknown[] = [];
  for (let n = w.nextNode(); n; n = w.nextNode()) { const r = document.createRange(); r.selectNodeContents(n); out.push(JSON.stringify([n.textContent, [...r.getClientRects()].map((x) => [x.top, x.width])])); }
  return out;
})));
await b.close();
