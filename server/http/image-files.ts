import { type Request, Router } from 'express';
import { isProductImage } from '../domain/ads/advertiser-products.js';
import { countImpression } from '../domain/ads/revenue.js';
import { addressHash, isListingMember, unbillableReason } from '../domain/ads/viewers.js';
import { findImageByStorageName } from '../domain/staging/images.js';
import { errorResponse } from '../errors.js';
import { log } from '../observability/logger.js';
import { isImageName } from '../storage/storage.js';
import type { Services } from '../services.js';

const CACHE_FOREVER = 'public, max-age=31536000, immutable';

/**
 * Whether this load of a placed image is billed, and as which viewer. A viewer is the client address as Express's
 * `trust proxy` (TRUST_PROXY) reads it — the User-Agent plays no part, so rotating it from one address changes
 * nothing. HEAD, prefetches and known bots are served unbilled, and so is a signed-in member of the listing's
 * accounts (the dashboard's session cookie), who is checking their own image rather than viewing an ad.
 */
async function billableViewer(services: Services, req: Request, imageId: string): Promise<string | null> {
  if (unbillableReason({ method: req.method, headers: req.headers }) !== null) return null;
  const sessionId = services.auth.readSessionCookie(req.headers.cookie ?? '');
  if (sessionId) {
    const { user } = await services.auth.validateSession(sessionId);
    if (user && (await isListingMember(services.db, { userId: user.id, imageId }))) return null;
  }
  return addressHash(services.db, req.ip ?? req.socket.remoteAddress ?? '', services.clock.now());
}

/**
 * GET /images/<name>: stored images, without credentials (the unguessable name is the capability). Only names with
 * a recorded image row (or an advertiser's product picture) are served, so files of a failed request never show. A
 * billable load of a placed image counts one impression per placement before the bytes go out, at most once per
 * image per client address in 24 hours.
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
      if (image?.kind === 'placed') {
        await billableViewer(services, req, image.id)
          .then((viewer) =>
            viewer === null
              ? false
              : countImpression(services.db, { imageId: image.id, viewer, now: services.clock.now() }),
          )
          .catch((error: unknown) => log.error({ err: error, imageId: image.id }, 'impression not counted'));
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
