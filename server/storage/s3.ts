import {
  DeleteObjectCommand,
  GetObjectCommand,
  NoSuchKey,
  paginateListObjectsV2,
  PutObjectCommand,
  S3Client,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import { contentTypeOf, type ImageStorage, isStoredName } from './storage.js';

export interface S3Location {
  bucket: string;
  /** Key prefix without a trailing slash; '' for the bucket root. */
  prefix: string;
  client: S3ClientConfig;
}

/**
 * `s3://bucket/prefix?endpoint=http://host:port&region=…&force_path_style=true`. Credentials are not part of the URL:
 * the SDK reads AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY (or a profile, or an instance role) as usual.
 */
export function parseS3Url(url: string): S3Location {
  const parsed = new URL(url);
  if (parsed.protocol !== 's3:' || !parsed.hostname)
    throw new Error('must look like s3://bucket/prefix?endpoint=…&region=…');
  const query = parsed.searchParams;
  const endpoint = query.get('endpoint') ?? undefined;
  return {
    bucket: parsed.hostname,
    prefix: decodeURIComponent(parsed.pathname).replace(/^\/+|\/+$/g, ''),
    client: {
      region: query.get('region') ?? process.env.AWS_REGION ?? 'us-east-1',
      ...(endpoint ? { endpoint } : {}),
      forcePathStyle: query.get('force_path_style') === 'true',
    },
  };
}

/**
 * Images as objects in any S3-compatible store (AWS S3, MinIO, R2). A PUT is atomic, so readers never see half an
 * object. The objects stay private: images are served through the app (see docs/operators/mysql-and-s3.md).
 */
export function createS3Storage(options: {
  location: S3Location;
  publicBaseUrl: string;
  client?: S3Client;
}): ImageStorage {
  const { bucket, prefix } = options.location;
  const client = options.client ?? new S3Client(options.location.client);
  const keyOf = (name: string) => {
    if (!isStoredName(name)) throw new Error(`Not an image name: ${name}`);
    return prefix ? `${prefix}/${name}` : name;
  };

  return {
    async put(name, data, contentType) {
      await client.send(
        new PutObjectCommand({
          Bucket: bucket,
          Key: keyOf(name),
          Body: data,
          ContentType: contentType,
          ContentLength: data.length,
        }),
      );
    },
    async get(name) {
      if (!isStoredName(name)) return null;
      try {
        const object = await client.send(new GetObjectCommand({ Bucket: bucket, Key: keyOf(name) }));
        if (!object.Body) return null;
        const bytes = await object.Body.transformToByteArray();
        return {
          data: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength),
          contentType: contentTypeOf(name),
        };
      } catch (error) {
        if (error instanceof NoSuchKey || (error as { name?: string }).name === 'NoSuchKey') return null;
        throw error;
      }
    },
    async delete(name) {
      if (!isStoredName(name)) return;
      await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: keyOf(name) }));
    },
    async *list() {
      const pages = paginateListObjectsV2({ client }, { Bucket: bucket, Prefix: prefix ? `${prefix}/` : undefined });
      for await (const page of pages) {
        for (const object of page.Contents ?? []) {
          const name = object.Key?.slice(prefix ? prefix.length + 1 : 0) ?? '';
          if (isStoredName(name)) yield { name, modifiedAt: object.LastModified?.getTime() ?? 0 };
        }
      }
    },
    url: (name) => `${options.publicBaseUrl}/images/${name}`,
  };
}
