import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
// s3rver speaks the S3 REST protocol (signatures included) over a folder: a real S3 client talks to it unchanged.
import S3rver from '@20minutes/s3rver';

/** The credentials s3rver accepts; the AWS SDK reads them from the usual variables, as in production. */
export const S3RVER_CREDENTIALS = {
  AWS_ACCESS_KEY_ID: 'S3RVER',
  AWS_SECRET_ACCESS_KEY: 'S3RVER',
  AWS_REGION: 'us-east-1',
};

export interface LocalS3 {
  endpoint: string;
  bucket: string;
  /** A STORAGE_URL for this server, under `prefix`. */
  storageUrl(prefix: string): string;
  close(): Promise<void>;
}

/** A local S3-protocol server on a random port with one empty bucket. */
export async function startLocalS3(bucket = 'roomstage-test'): Promise<LocalS3> {
  Object.assign(process.env, S3RVER_CREDENTIALS);
  const directory = mkdtempSync(join(tmpdir(), 'roomstage-s3-'));
  // allowMismatchedSignatures: the SDK signs a bucket listing's path as `/bucket/` and s3rver recomputes it as
  // `/bucket`, so listings would fail on the fake alone; the access key is still checked.
  const server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    silent: true,
    directory,
    configureBuckets: [{ name: bucket }],
    allowMismatchedSignatures: true,
  });
  const address = (await server.run()) as AddressInfo;
  const endpoint = `http://127.0.0.1:${address.port}`;
  return {
    endpoint,
    bucket,
    storageUrl: (prefix) =>
      `s3://${bucket}/${prefix}?endpoint=${encodeURIComponent(endpoint)}&region=us-east-1&force_path_style=true`,
    close: async () => {
      await server.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
