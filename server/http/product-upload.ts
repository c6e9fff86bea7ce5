import type { NextFunction, Request, Response } from 'express';
import multer, { MulterError } from 'multer';
import { setParsedBody } from '../adapters/library-internals.js';
import { UPLOAD_REFERENCE_PREFIX } from '../domain/staging/image-input.js';
import { sha256Hex } from '../domain/staging/originals.js';
import { AppError } from '../errors.js';
import { MAX_PRODUCT_IMAGE_BYTES } from '../imaging/product-image.js';

/** Where advertisers upload a product picture as multipart/form-data (Token). */
export const PRODUCT_UPLOAD_PATH = '/api/v1/ads/products';

const upload = multer({
  storage: multer.memoryStorage(),
  limits: { fileSize: MAX_PRODUCT_IMAGE_BYTES, files: 1, fields: 40, fieldSize: 4096, fieldNameSize: 100, parts: 41 },
}).single('image');

function uploadError(error: unknown): AppError {
  if (error instanceof MulterError) {
    if (error.code === 'LIMIT_FILE_SIZE')
      return new AppError('payload_too_large', 'A product image may be at most 5 MB.');
    if (error.code === 'LIMIT_UNEXPECTED_FILE' || error.code === 'LIMIT_FILE_COUNT') {
      const message = 'Upload one product picture in the file field "image".';
      return new AppError('invalid_request', message, { details: [{ path: error.field ?? 'image', message }] });
    }
    return new AppError('payload_too_large', 'The form has too many or too long fields.');
  }
  return new AppError('invalid_request', 'The multipart/form-data body could not be read.');
}

/**
 * The bridge takes JSON only: a product form is read here (the picture in memory, ≤ 5 MB) and handed on as the JSON
 * body the procedure validates, the file named by reference in `image` as on the image endpoints. Other bodies pass.
 */
export function productUploadBody(req: Request, res: Response, next: NextFunction) {
  if (!req.is('multipart/form-data')) return next();
  upload(req, res, (error?: unknown) => {
    if (error) return next(uploadError(error));
    const body: Record<string, unknown> = { ...(req.body as Record<string, unknown>) };
    const uploads = new Map<string, Buffer>();
    if (req.file) {
      const reference = UPLOAD_REFERENCE_PREFIX + sha256Hex(req.file.buffer);
      uploads.set(reference, req.file.buffer);
      body.image = reference;
    }
    req.file = undefined;
    (req as Request & { uploads?: ReadonlyMap<string, Buffer> }).uploads = uploads;
    setParsedBody(req, body);
    next();
  });
}
