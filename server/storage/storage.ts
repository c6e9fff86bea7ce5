import { newId, randomBase62 } from '../ids.js';

/** What image storage hands back for a name. */
export interface StoredImage {
  data: Buffer;
  contentType: string;
}

/** One stored file as `list` reports it. */
export interface StoredEntry {
  name: string;
  /** When the file was written, epoch ms. */
  modifiedAt: number;
}

/**
 * Where output images live: local disk (./local-disk.ts) or any S3-compatible store (./s3.ts), chosen by STORAGE_URL
 * (./open.ts). Names come from `newImageName` and are the only handle: whoever knows one may fetch the image.
 */
export interface ImageStorage {
  put(name: string, data: Buffer, contentType: string): Promise<void>;
  get(name: string): Promise<StoredImage | null>;
  /** Best effort: used to clean up after a request that failed once its files were written. */
  delete(name: string): Promise<void>;
  /** Every stored image (names we issued only), page by page; retention uses it to find files no row points to. */
  list(): AsyncIterable<StoredEntry>;
  /** The absolute public URL of a stored image. */
  url(name: string): string;
}

export function contentTypeOf(name: string): string {
  return CONTENT_TYPE_BY_EXTENSION[name.slice(name.lastIndexOf('.') + 1)] ?? 'application/octet-stream';
}

const NAME_PATTERN = /^img_[0-9A-Za-z]{22}_[0-9A-Za-z]{20}\.(jpg|png|webp|avif|tiff)$/;
const ORIGINAL_NAME_PATTERN = /^src_[0-9A-Za-z]{22}_[0-9A-Za-z]{20}\.(jpg|png|webp|avif|tiff)$/;

export const CONTENT_TYPE_BY_EXTENSION: Record<string, string> = {
  jpg: 'image/jpeg',
  png: 'image/png',
  webp: 'image/webp',
  avif: 'image/avif',
  tiff: 'image/tiff',
};

/** `img_<22>_<20>.<ext>`: ~250 bits of randomness, so a name cannot be guessed from an image id or another name. */
export function newImageName(imageId: string, extension: string): string {
  const ext = extension.replace(/^\./, '').toLowerCase().replace('jpeg', 'jpg');
  if (!CONTENT_TYPE_BY_EXTENSION[ext]) throw new Error(`Unsupported image extension "${extension}"`);
  const id = imageId.startsWith('img_') ? imageId : newId('image');
  return `${id}_${randomBase62(20)}.${ext}`;
}

/**
 * `src_<22>_<20>.<ext>`: where the original input of a staged image is kept to re-render from. The /images route
 * serves `img_` names only, so originals are never public.
 */
export function newOriginalName(imageId: string, extension: string): string {
  return `src_${newImageName(imageId, extension).slice('img_'.length)}`;
}

/** A name /images may serve: an output's. Rejects anything that is not a name we issued (path traversal, other files). */
export function isImageName(name: string): boolean {
  return NAME_PATTERN.test(name);
}

/** A name storage may hold: an output's or an original's. */
export function isStoredName(name: string): boolean {
  return NAME_PATTERN.test(name) || ORIGINAL_NAME_PATTERN.test(name);
}
