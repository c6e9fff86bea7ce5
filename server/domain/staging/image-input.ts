import { AppError } from '../../errors.js';
import { downloadImage } from '../../outbound/image-download.js';
import type { NetworkPolicy } from '../../outbound/network-guard.js';

/** Limits on what a request may carry; the engine checks format and dimensions. */
export const MAX_IMAGE_BYTES = 15 * 1024 * 1024;
export const MAX_IMAGES_PER_REQUEST = 10;
export const IMAGE_DOWNLOAD_TIMEOUT_MS = 10_000;

/** How `image`/`images` name a file uploaded in the same multipart request (server/http/image-upload.ts). */
export const UPLOAD_REFERENCE_PREFIX = 'upload:sha256:';

/** The ways a request can name its image(s); the routers' zod schemas produce this. */
export interface ImageSources {
  image?: string | undefined;
  images?: string[] | undefined;
  image_url?: string | undefined;
  /** Files of this request's multipart form, by reference. */
  uploads?: ReadonlyMap<string, Buffer>;
}

const DATA_URL = /^data:([^;,]*)((?:;[^;,]*)*),/i;
const BASE64_BODY = /^[A-Za-z0-9+/_-]*={0,2}$/;

function invalidField(path: string, message: string): AppError {
  return new AppError('invalid_request', message, { details: [{ path, message }] });
}

function tooLarge(): AppError {
  return new AppError('payload_too_large', 'An image is larger than 15 MB, the limit per image.');
}

/** An uploaded file by reference, or base64 / a `data:image/…;base64,` URL → bytes, refusing oversize input before decoding. */
export function decodeInlineImage(text: string, path: string, uploads?: ReadonlyMap<string, Buffer>): Buffer {
  if (text.startsWith(UPLOAD_REFERENCE_PREFIX)) {
    const uploaded = uploads?.get(text);
    if (!uploaded) throw invalidField(path, `${path} names no file uploaded with this request.`);
    return uploaded;
  }
  let body = text.trim();
  const dataUrl = DATA_URL.exec(body);
  if (dataUrl) {
    const mediaType = (dataUrl[1] ?? '').toLowerCase();
    if (!/;base64$/i.test(dataUrl[2] ?? ''))
      throw invalidField(path, `${path} is a data URL without ;base64; send the image base64-encoded.`);
    if (mediaType && !mediaType.startsWith('image/')) {
      throw new AppError(
        'unsupported_media_type',
        `${path} is a data URL of ${mediaType}, not an image; send JPEG, PNG, WebP, AVIF or TIFF.`,
      );
    }
    body = body.slice(dataUrl[0].length);
  }
  if (body.length === 0) throw invalidField(path, `${path} is empty.`);
  if (Math.floor((body.length * 3) / 4) - 2 > MAX_IMAGE_BYTES) throw tooLarge();
  const bytes = decodeBase64Strictly(body);
  if (!bytes)
    throw invalidField(
      path,
      `${path} must be base64 or a data:image/…;base64, URL (or upload the file as multipart/form-data).`,
    );
  if (bytes.length === 0) throw invalidField(path, `${path} is empty.`);
  if (bytes.length > MAX_IMAGE_BYTES) throw tooLarge();
  return bytes;
}

/**
 * Node's decoder skips characters outside the alphabet, so a clean string decodes to exactly the length its size
 * promises and a dirty one to fewer bytes (always, unless length % 4 is 1, which clean base64 never has). That
 * check runs natively; only text that fails it (line breaks, junk) is scanned by the regular expression.
 */
function decodeBase64Strictly(text: string): Buffer | null {
  if (text.length % 4 !== 1) {
    const bytes = Buffer.from(text, 'base64');
    if (bytes.length === Buffer.byteLength(text, 'base64')) return bytes;
  }
  const compact = text.replace(/\s+/g, '');
  if (compact.length % 4 === 1 || !BASE64_BODY.test(compact)) return null;
  return Buffer.from(compact, 'base64');
}

export const IMAGE_SOURCE_FIELDS = ['image', 'images', 'image_url'] as const;

/** Whether the request names an image of its own (as opposed to, say, `image_id` of a stored one). */
export function hasImageSource(sources: ImageSources): boolean {
  return IMAGE_SOURCE_FIELDS.some((field) => sources[field] !== undefined);
}

/**
 * Exactly one source per request: `image`, `images` (stage only, up to 10) or `image_url`. Returns the raw bytes of
 * every image in order; nothing here decodes pixels.
 */
export async function readImageSources(
  sources: ImageSources,
  policy: NetworkPolicy,
  options: { allowMany: boolean },
): Promise<Buffer[]> {
  const given = IMAGE_SOURCE_FIELDS.filter((field) => sources[field] !== undefined);
  const allowed = options.allowMany ? 'image, images or image_url' : 'image or image_url';
  const [first, second] = given;
  if (first === undefined)
    throw invalidField('image', `Send the image: ${allowed} (JSON), or an image file field (multipart/form-data).`);
  if (second !== undefined) throw invalidField(second, `Send only one of ${allowed}.`);

  if (sources.images !== undefined) {
    if (!options.allowMany) throw invalidField('images', 'This endpoint takes one image; use image or image_url.');
    if (sources.images.length === 0) throw invalidField('images', 'images is empty.');
    if (sources.images.length > MAX_IMAGES_PER_REQUEST) {
      throw new AppError(
        'payload_too_large',
        `${sources.images.length} images sent; a request may carry at most ${MAX_IMAGES_PER_REQUEST}.`,
      );
    }
    return sources.images.map((text, index) => decodeInlineImage(text, `images.${index}`, sources.uploads));
  }
  if (sources.image !== undefined) return [decodeInlineImage(sources.image, 'image', sources.uploads)];
  if (sources.image_url === undefined) throw invalidField(first, `Send the image: ${allowed}.`);
  const bytes = await downloadImage(sources.image_url, policy, {
    maxBytes: MAX_IMAGE_BYTES,
    timeoutMs: IMAGE_DOWNLOAD_TIMEOUT_MS,
  });
  return [bytes];
}
