import type { RequestHandler } from 'express';
import compression from 'compression';

/**
 * gzip (or deflate) for text the client accepts compressed: pages, scripts, styles, JSON. Images never: JPEG, PNG and
 * WebP are compressed already, and staged images are served byte for byte as stored.
 */
export function compressText(): RequestHandler {
  return compression({
    filter: (req, res) =>
      !String(res.getHeader('Content-Type') ?? '').startsWith('image/') && compression.filter(req, res),
  });
}
