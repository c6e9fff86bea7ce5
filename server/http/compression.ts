import type { RequestHandler } from 'express';
import compression from 'compression';

/**
 * gzip (or deflate) for text the client accepts compressed: pages, scripts, styles, JSON. Images never: JPEG, PNG and
 * WebP are compressed already, and staged images are served byte for byte as stored.
 */
export function compressText(): RequestHandler {
  const compress = compression({
    filter: (req, res) =>
      !String(res.getHeader('Content-Type') ?? '').startsWith('image/') && compression.filter(req, res),
  });
  return (req, res, next) => {
    // A client that sends no Accept-Encoding (curl, most API clients) gets every response as it is, which is what
    // compression would decide once the headers are written; it is spared the wrapping of write and end that
    // deciding takes. Vary still tells caches the response depends on the header.
    if (req.headers['accept-encoding'] === undefined) {
      res.vary('Accept-Encoding');
      return next();
    }
    compress(req, res, next);
  };
}
