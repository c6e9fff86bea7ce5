import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import multer, { MulterError } from 'multer';
import { setParsedBody } from '../adapters/library-internals.js';
import { sha256Hex } from '../domain/staging/originals.js';
import { MAX_IMAGE_BYTES, MAX_IMAGES_PER_REQUEST, UPLOAD_REFERENCE_PREFIX } from '../domain/staging/image-input.js';
import { bearerToken } from '../auth/bearer.js';
import {
  type ApiKeyHash,
  type AuthenticatedKey,
  apiKeyHashOf,
  type KeyScope,
  type VerifiedApiKey,
} from '../domain/keys/api-keys.js';
import { checkApiKey } from '../domain/keys/credential.js';
import { enterImageWork } from '../limits/image-admission.js';
import { AppError } from '../errors.js';
import type { Services } from '../services.js';

/** The endpoints that take images; only they accept multipart and large JSON bodies. */
export const IMAGE_UPLOAD_PATHS = [
  '/api/v1/stage',
  '/api/v1/enhance',
  '/api/v1/place-products',
  '/api/v1/declutter',
] as const;

/** Ten base64 images of 15 MB each, plus the other fields. */
export const IMAGE_JSON_LIMIT = '210mb';

const MULTI_IMAGE_PATHS = new Set<string>(['/api/v1/stage']);

/** A request whose multipart files were kept as Buffers; the tRPC context hands them to the procedure. */
export type UploadingRequest = Request & { uploads?: ReadonlyMap<string, Buffer>; verifiedApiKey?: VerifiedApiKey };

function uploadReference(bytes: Buffer): string {
  return UPLOAD_REFERENCE_PREFIX + sha256Hex(bytes);
}

const upload = multer({
  storage: multer.memoryStorage(),
  limits: {
    fileSize: MAX_IMAGE_BYTES,
    files: MAX_IMAGES_PER_REQUEST,
    fields: 20,
    fieldSize: 1024 * 1024,
    fieldNameSize: 100,
    parts: MAX_IMAGES_PER_REQUEST + 20,
  },
});

const imageFieldsFor = (path: string) => {
  const maxCount = MULTI_IMAGE_PATHS.has(path) ? MAX_IMAGES_PER_REQUEST : 1;
  return upload.fields([
    { name: 'image', maxCount },
    ...(MULTI_IMAGE_PATHS.has(path) ? [{ name: 'images', maxCount }] : []),
  ]);
};

/** Multer's refusals as JSON error bodies. */
function multipartError(error: unknown, path: string): AppError {
  if (error instanceof MulterError) {
    switch (error.code) {
      case 'LIMIT_FILE_SIZE':
        return new AppError('payload_too_large', 'An image is larger than 15 MB, the limit per image.');
      case 'LIMIT_FILE_COUNT':
        return new AppError('payload_too_large', `A request may carry at most ${MAX_IMAGES_PER_REQUEST} images.`);
      case 'LIMIT_FIELD_VALUE':
        return new AppError(
          'payload_too_large',
          `The text field ${error.field ?? ''} is over 1 MB; send images as file fields.`.replace('  ', ' '),
        );
      case 'LIMIT_PART_COUNT':
      case 'LIMIT_FIELD_COUNT':
      case 'LIMIT_FIELD_KEY':
        return new AppError('payload_too_large', 'The form has too many or too long fields.');
      case 'LIMIT_UNEXPECTED_FILE': {
        if ((error.field === 'image' || error.field === 'images') && MULTI_IMAGE_PATHS.has(path)) {
          return new AppError('payload_too_large', `A request may carry at most ${MAX_IMAGES_PER_REQUEST} images.`);
        }
        const message =
          error.field === 'image'
            ? 'This endpoint takes one image file.'
            : `Unexpected file field "${error.field ?? ''}"; upload the image in the field "image".`;
        return new AppError('invalid_request', message, { details: [{ path: error.field ?? 'image', message }] });
      }
      default:
        break;
    }
  }
  return new AppError('invalid_request', 'The multipart/form-data body could not be read.');
}

/**
 * The REST bridge only takes JSON, so a multipart form is read here (files in memory, within the limits) and handed on
 * as the JSON body the procedure validates. Files are not base64-encoded (megabytes copied twice per image): each
 * stays a Buffer on the request, and the body names it `upload:sha256:<hex>` in `image` (one) or `images` (several),
 * so the procedure reads the same fields for both forms and an Idempotency-Key fingerprint still tells files apart.
 * Text fields stay strings (zod coerces numbers).
 */
function multipartAsJson(req: Request, res: Response, next: NextFunction) {
  const path = (req.originalUrl.split('?')[0] ?? '').replace(/\/+$/, '');
  imageFieldsFor(path)(req, res, (error?: unknown) => {
    if (error) return next(multipartError(error, path));
    const files = Object.values((req.files ?? {}) as Record<string, Express.Multer.File[]>).flat();
    const body: Record<string, unknown> = { ...(req.body as Record<string, unknown>) };
    const uploads = new Map<string, Buffer>();
    const references = files.map((file) => {
      const reference = uploadReference(file.buffer);
      uploads.set(reference, file.buffer);
      return reference;
    });
    if (references.length === 1) body.image = references[0];
    else if (references.length > 1) body.images = references;
    req.files = undefined;
    (req as UploadingRequest).uploads = uploads;
    // The JSON parser further down sees the body as already read.
    setParsedBody(req, body);
    next();
  });
}

const largeJson = express.json({ limit: IMAGE_JSON_LIMIT, strict: true });

/**
 * Mounted before the general 1 MB JSON parser, for IMAGE_UPLOAD_PATHS only. The key is checked first, with the same
 * credential check the procedure runs (exists, not revoked, not expired, account not suspended, the endpoint's
 * scope): a refused key is answered at once and its (up to 210 MB) body is never buffered; the connection closes
 * after the answer, so the rest of the body is not read either. An accepted key takes a place in the process's image
 * work gate first (503 with Retry-After when it is full), held until the response is done, so buffered bodies and
 * decodes in memory stay bounded. `scopeOf` gives the scope the endpoint's procedure declares.
 */
export function imageRequestBody(
  services: Pick<Services, 'db' | 'clock' | 'imageWork'>,
  scopeOf: (path: string) => KeyScope | undefined,
): RequestHandler {
  return async (req, res, next) => {
    try {
      const credential = bearerToken(req.headers);
      const keyHash = credential ? apiKeyHashOf(credential) : null;
      const path = (req.originalUrl.split('?')[0] ?? '').replace(/\/+$/, '');
      let key: AuthenticatedKey;
      try {
        key = await checkApiKey(services.db, keyHash, services.clock.now(), scopeOf(path));
      } catch (refused) {
        res.setHeader('Connection', 'close');
        return next(refused);
      }
      // The procedure takes this key as checked instead of looking it up again.
      (req as UploadingRequest).verifiedApiKey = { hash: keyHash as ApiKeyHash, key };
      let release: () => void;
      try {
        release = enterImageWork(services.imageWork);
      } catch (full) {
        // The unread body is not drained: the connection closes after this answer.
        res.setHeader('Connection', 'close');
        return next(full);
      }
      res.once('close', release);
      if (req.is('multipart/form-data')) return multipartAsJson(req, res, next);
      return largeJson(req, res, next);
    } catch (error) {
      next(error);
    }
  };
}
