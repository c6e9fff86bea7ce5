import { createHash } from 'node:crypto';
import { type Request, Router } from 'express';
import { isProductImage } from '../domain/ads/advertiser-products.js';
import { countImpression } from '../domain/ads/revenue.js';
import { findImageByStorageName } from '../domain/staging/images.js';
import { errorResponse } from '../errors.js';
import { log } from '../observability/logger.js';
import { isImageName } from '../storage/storage.js';
import type { Services } from '../services.js';

const CACHE_FOREVER = 'public, max-age=31536000, immutable';

/**
 * A viewer is a client address (as TRUST_PROXY allows) with its User-Agent, hashed: what a browser on one network
 * looks like to us without a cookie. Stored only as this hash, and only for an hour.
 */
function viewerOf(req: Request): string {
  return createHash('sha256')
    .update(`${req.ip ?? ''}\n${req.headers['user-agent'] ?? ''}`)
    .digest('hex')
    .slice(0, 32);
}

/**
 * GET /images/<name>: stored images, without credentials (the unguessable name is the capability). Only names with
 * a recorded image row (or an advertiser's product picture) are served, so files of a failed request never show. A GET of a placed image counts one
 * impression per placement before the bytes go out, at most once an hour per viewer.
 */
export function imageFilesRouter(services: Services): Router {
  const router = Router();
  router.get('/:name', async (req, res, next) => {
    try {
      const name = req.params.name;
      const notFound = () => res.status(404).json(errorResponse('not_found', 'No such image.').body);
      if (!isImageName(name)) return notFound();
      const image = await findImageByStorageName(services.db, name);
      const product = !image && (await isProductImage(services.db, name));
      const stored = image || product ? await services.storage.get(name) : null;
      if (!stored) return notFound();
      const contentType = image ? image.content_type : 'image/png';
      if (image?.kind === 'placed' && req.method === 'GET') {
        const view = { imageId: image.id, viewer: viewerOf(req), now: services.clock.now() };
        await countImpression(services.db, view).catch((error: unknown) =>
          log.error({ err: error, imageId: image.id }, 'impression not counted'),
        );
      }
      res.status(200).set({
        'Content-Type': contentType,
        'Content-Length': String(stored.data.length),
        'Cache-Control': CACHE_FOREVER,
        'X-Content-Type-Options': 'nosniff',
      });
      res.end(req.method === 'HEAD' ? undefined : stored.data);
    } catch (error) {
      next(error);
    }
  });
  return router;
}
