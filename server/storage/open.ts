import { fileURLToPath } from 'node:url';
import { createLocalDiskStorage } from './local-disk.js';
import { createS3Storage, parseS3Url } from './s3.js';
import type { ImageStorage } from './storage.js';

/** `file:./data/images` (relative to the working directory) or `file:///abs/path`; `s3://…` (./s3.ts). */
export function openImageStorage(storageUrl: string, publicBaseUrl: string): ImageStorage {
  if (storageUrl.startsWith('s3://')) return createS3Storage({ location: parseS3Url(storageUrl), publicBaseUrl });
  if (storageUrl.startsWith('file:'))
    return createLocalDiskStorage({ directory: localPathOf(storageUrl), publicBaseUrl });
  throw new Error(`STORAGE_URL must start with file: or s3:// (got ${storageUrl})`);
}

function localPathOf(storageUrl: string): string {
  return storageUrl.startsWith('file://') ? fileURLToPath(storageUrl) : storageUrl.slice('file:'.length);
}
