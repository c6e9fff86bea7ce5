import { Router } from 'express';
import type { Image } from '../../db/schema.js';
import { disclosureCaption, isOriginalToken, originalPageUrl } from '../domain/disclosure/disclosure.js';
import { findImageByOriginalToken } from '../domain/staging/images.js';
import type { Services } from '../services.js';

/*
 * GET /o/<token>: the public page of a staged, decluttered or placed image's unaltered original, beside the result,
 * with its disclosure caption. Plain server-rendered HTML (no script), like /images a capability URL: the random
 * token is the only key. The original's bytes are served only under the page's token, never by /images.
 */

const STYLE = `
  :root { color-scheme: light; font-family: system-ui, sans-serif; color: #1a1a1a; background: #fafafa; }
  body { margin: 0 auto; max-width: 1200px; padding: 1.5rem; line-height: 1.5; }
  h1 { font-size: 1.5rem; margin: 0 0 .5rem; }
  .pair { display: grid; gap: 1rem; grid-template-columns: repeat(auto-fit, minmax(280px, 1fr)); margin: 1rem 0; }
  figure { margin: 0; background: #fff; border: 1px solid #d0d0d0; border-radius: 8px; padding: .5rem; }
  figure img { display: block; width: 100%; height: auto; border-radius: 4px; }
  figcaption { font-weight: 600; padding: .5rem .25rem 0; }
  .caption { font-size: 1.05rem; background: #fff; border-left: 4px solid #2f5d8a; padding: .75rem 1rem; }
  a { color: #1f4e79; }
`;

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

function page(options: { title: string; description: string; body: string }): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<meta name="description" content="${escapeHtml(options.description)}">
<title>${escapeHtml(options.title)}</title>
<style>${STYLE}</style>
</head>
<body>
<main>
${options.body}
</main>
</body>
</html>`;
}

const WHAT = { staged: 'Virtually staged', decluttered: 'Digitally decluttered', placed: 'Virtually staged' } as const;

function originalPage(services: Services, image: Image, token: string): string {
  const what = WHAT[image.kind as keyof typeof WHAT] ?? 'Edited';
  const pageUrl = originalPageUrl(services.config.publicBaseUrl, token);
  const caption =
    disclosureCaption(image.disclosure, pageUrl) ??
    `${what}: this picture was changed digitally. The unaltered original is shown beside it.`;
  const result = services.storage.url(image.storage_name);
  const original = `/o/${token}/original`;
  return page({
    title: `${what} photo and its original — Roomstage`,
    description: `${what} photo beside the unaltered original photo it was made from, with its disclosure.`,
    body: `<h1>${what} photo and its original</h1>
<p class="caption">${escapeHtml(caption)}</p>
<div class="pair">
<figure>
<img src="${escapeHtml(original)}" width="${image.width}" height="${image.height}" alt="The original photo, as taken, before any change">
<figcaption>Original photo (unaltered)</figcaption>
</figure>
<figure>
<img src="${escapeHtml(result)}" width="${image.width}" height="${image.height}" alt="The same room, ${what.toLowerCase()}: furniture and decor added digitally">
<figcaption>${escapeHtml(what)}</figcaption>
</figure>
</div>
<p><a href="${escapeHtml(original)}">Open the original photo</a> · <a href="${escapeHtml(result)}">Open the ${escapeHtml(what.toLowerCase())} photo</a></p>`,
  });
}

const NOT_FOUND = page({
  title: 'Page not found — Roomstage',
  description: 'There is no original photo at this address.',
  body: `<h1>Page not found</h1>
<p>There is no original photo at this address. Check the link you were given.</p>`,
});

export function originalPagesRouter(services: Services): Router {
  const router = Router();
  const notFound = (res: import('express').Response) =>
    res.status(404).type('html').set('Cache-Control', 'no-store').send(NOT_FOUND);
  const imageOf = async (token: string) =>
    isOriginalToken(token) ? await findImageByOriginalToken(services.db, token) : undefined;

  router.get('/:token', async (req, res, next) => {
    try {
      const image = await imageOf(req.params.token);
      if (!image?.original_storage_name) return notFound(res);
      res
        .status(200)
        .type('html')
        // The token is the capability: it must not leak to the sites the page links to.
        .set({ 'Cache-Control': 'private, max-age=300', 'Referrer-Policy': 'no-referrer' })
        .send(originalPage(services, image, req.params.token));
    } catch (error) {
      next(error);
    }
  });

  router.get('/:token/original', async (req, res, next) => {
    try {
      const image = await imageOf(req.params.token);
      const stored = image?.original_storage_name ? await services.storage.get(image.original_storage_name) : null;
      if (!stored) return notFound(res);
      res.status(200).set({
        'Content-Type': stored.contentType,
        'Content-Length': String(stored.data.length),
        'Cache-Control': 'private, max-age=3600',
        'X-Content-Type-Options': 'nosniff',
      });
      res.end(req.method === 'HEAD' ? undefined : stored.data);
    } catch (error) {
      next(error);
    }
  });
  return router;
}
