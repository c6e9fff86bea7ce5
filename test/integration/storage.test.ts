import { mkdtempSync, rmSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openImageStorage } from '../../server/storage/open.js';
import { newImageName, type ImageStorage } from '../../server/storage/storage.js';
import { newId } from '../../server/ids.js';
import { signUpWithKey } from '../fixtures/api-client.js';
import { fetchImage, imageForm, roomJpeg } from '../fixtures/images.js';
import { type LocalS3, startLocalS3 } from '../helpers/s3-server.js';
import { useImagingServer } from '../helpers/staging.js';

const BASE = 'https://stage.example.com';

interface Backend {
  title: string;
  open(): Promise<{ storage: ImageStorage; close(): Promise<void> }>;
}

let s3: LocalS3;
beforeAll(async () => {
  s3 = await startLocalS3();
});
afterAll(async () => {
  await s3?.close();
});

const backends: Backend[] = [
  {
    title: 'local disk (file:)',
    async open() {
      const dir = mkdtempSync(join(tmpdir(), 'roomstage-storage-'));
      return {
        storage: openImageStorage(`file:${dir}/images`, BASE),
        close: async () => rmSync(dir, { recursive: true, force: true }),
      };
    },
  },
  {
    title: 'S3 protocol (s3://)',
    async open() {
      return { storage: openImageStorage(s3.storageUrl(`run-${newId('image')}`), BASE), close: async () => {} };
    },
  },
];

const name = (extension = 'jpg') => newImageName(newId('image'), extension);

async function listed(storage: ImageStorage) {
  const entries = [];
  for await (const entry of storage.list()) entries.push(entry);
  return entries;
}

for (const backend of backends) {
  describe(`Image storage on ${backend.title}`, () => {
    let storage: ImageStorage;
    let close: () => Promise<void>;
    beforeAll(async () => {
      ({ storage, close } = await backend.open());
    });
    afterAll(async () => close?.());

    it('returns the exact bytes and content type that were put', async () => {
      const file = name('png');
      const bytes = Buffer.from([0x89, 0x50, 0x4e, 0x47, 1, 2, 3, 250]);
      await storage.put(file, bytes, 'image/png');
      const stored = await storage.get(file);
      expect(stored?.contentType).toBe('image/png');
      expect(Buffer.compare(stored!.data, bytes)).toBe(0);
    });

    it('answers null for a name never stored and for names it did not issue', async () => {
      expect(await storage.get(name())).toBeNull();
      expect(await storage.get('../../etc/passwd')).toBeNull();
    });

    it('deletes, and deleting twice is harmless', async () => {
      const file = name();
      await storage.put(file, Buffer.from('x'), 'image/jpeg');
      await storage.delete(file);
      await storage.delete(file);
      expect(await storage.get(file)).toBeNull();
    });

    it('lists every stored image with its write time, across pages', async () => {
      const before = Date.now() - 60_000;
      const names = Array.from({ length: 5 }, () => name());
      for (const file of names) await storage.put(file, Buffer.from(file), 'image/jpeg');
      const entries = await listed(storage);
      for (const file of names) {
        const entry = entries.find((e) => e.name === file);
        expect(entry, file).toBeDefined();
        expect(entry!.modifiedAt).toBeGreaterThan(before);
      }
    });

    it('builds public URLs on PUBLIC_BASE_URL under /images', () => {
      const file = name();
      expect(storage.url(file)).toBe(`${BASE}/images/${file}`);
    });
  });
}

describe('Image storage prefixes', () => {
  it('keeps two prefixes of one bucket apart', async () => {
    const a = openImageStorage(s3.storageUrl('tenant-a'), BASE);
    const b = openImageStorage(s3.storageUrl('tenant-b'), BASE);
    const file = name();
    await a.put(file, Buffer.from('a'), 'image/jpeg');
    expect(await b.get(file)).toBeNull();
    expect((await listed(b)).map((e) => e.name)).not.toContain(file);
  });

  it('lists only files whose names we issued in a local folder', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'roomstage-storage-'));
    const storage = openImageStorage(`file:${dir}`, BASE);
    const file = name();
    await storage.put(file, Buffer.from('x'), 'image/jpeg');
    const { writeFileSync } = await import('node:fs');
    writeFileSync(join(dir, 'notes.txt'), 'not an image');
    utimesSync(join(dir, file), new Date(1_000_000), new Date(1_000_000));
    expect(await listed(storage)).toEqual([{ name: file, modifiedAt: 1_000_000 }]);
    rmSync(dir, { recursive: true, force: true });
  });
});

describe('A server storing images in S3', () => {
  const server = useImagingServer('sqlite', () => ({ env: { STORAGE_URL: s3.storageUrl('server') } }));

  it('stages an image into the bucket and serves it at the same /images URL with the same headers', async () => {
    const { key } = await signUpWithKey(server.api);
    const response = await server.api.post('/api/v1/stage', {
      token: key,
      body: imageForm([{ data: await roomJpeg(320, 240) }]),
    });
    expect(response.status).toBe(200);
    const imageUrl = response.body.images[0].image_url as string;
    const storageName = imageUrl.split('/').pop()!;
    const direct = openImageStorage(s3.storageUrl('server'), BASE);
    expect((await direct.get(storageName))?.contentType).toBe('image/jpeg');
    const served = await fetchImage(server, imageUrl);
    expect(served.response.status).toBe(200);
    expect(served.response.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(served.metadata).toMatchObject({ width: 320, height: 240, format: 'jpeg' });
  });
});
