import { Router } from 'express';
import { countImpression } from '../domain/ads/revenue.js';
import { findImageByStorageName } from '../domain/staging/images.js';
import { errorResponse } from '../errors.js';
import { isImageName } from '../storage/storage.js';
import type { Services } from '../trpc.js';

const CACHE_FOREVER = 'public, max-age=31536000, immutable';

/**
 * GET /images/<name>: stored images, without credentials (the unguessable name is the capability). Only names with
 * a recorded image row are served, so files of a failed request never show. Each GET of a placed image counts one
 * impression per placement before the bytes go out.
 */
export function imageFilesRouter(services: Services): Router {
  const router = Router();
  router.get('/:name', async (req, res, next) => {
    try {
      const name = req.params.name;
      const notFound = () => res.status(404).json(errorResponse('not_found', 'No such image.').body);
      if (!isImageName(name)) return notFound();
      const image = await findImageByStorageName(services.db, name);
      const stored = image ? await services.storage.get(name) : null;
      if (!image || !stored) return notFound();
      if (image.kind === 'placed' && req.method === 'GET') {
        await countImpression(services.db, image.id).catch((error: unknown) => console.error('[images] impression not counted:', error));
      }
      res.status(200).set({
        'Content-Type': image.content_type,
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
