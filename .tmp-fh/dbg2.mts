import { chromium } from 'playwright-core';
const b = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--headless'] });
const p = await b.newPage();
await p.setViewportSize({ width: 1280, height: 900 });
await p.goto('http://127.0.0.1:3902/docs/images');
const wrapped = await p.locator('main tbody td').evaluateAll((cells) =>
  cells.filter((cell) => /^\S+$/.test(cell.textContent?.trim() ?? '')).filter((cell) => {
    const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const range = document.createRange(); range.selectNodeContents(node);
      const tops = Array.from(range.getClientRects(), (rect) => Math.round(rect.top)); (cell as any).dataset.tops = JSON.stringify(tops); if (new Set(tops).size > 1) return true;
    }
    return false;
  }).map((c) => c.textContent + (c as any).dataset.tops));
console.log(wrapped.length, wrapped.slice(0, 5));
await b.close();
