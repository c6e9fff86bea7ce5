import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Scene } from '../../server/imaging/engine.js';
import { emptyRoomImage } from '../../server/imaging/synthetic-room.js';
import { signUpWithKey } from '../fixtures/api-client.js';
import { describeEachDatabase } from '../helpers/each-database.js';
import { fetchImage, imageForm } from '../fixtures/images.js';
import { useImagingServer } from '../helpers/staging.js';

type Box = { x: number; y: number; width: number; height: number };
const boxOf = ({ x, y, width, height }: Box): Box => ({ x, y, width, height });

/**
 * Compares two same-size pictures outside the given boxes, each widened by its shadow and one JPEG block:
 * the mean absolute channel difference and the share of channels off by more than 6.
 */
async function differenceOutside(a: Buffer, b: Buffer, boxes: Box[]) {
  const [pa, pb] = await Promise.all(
    [a, b].map((image) => sharp(image).removeAlpha().raw().toBuffer({ resolveWithObject: true })),
  );
  const { width, height, channels } = pa!.info;
  const widened = boxes.map((box) => {
    const margin = Math.ceil(0.08 * box.width) + 16;
    return { x0: box.x - margin, y0: box.y - margin, x1: box.x + box.width + margin, y1: box.y + box.height + margin };
  });
  let sum = 0;
  let off = 0;
  let count = 0;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      if (widened.some((w) => x >= w.x0 && x < w.x1 && y >= w.y0 && y < w.y1)) continue;
      for (let k = 0; k < channels; k++) {
        const i = (y * width + x) * channels + k;
        const difference = Math.abs(pa!.data[i]! - pb!.data[i]!);
        sum += difference;
        if (difference > 6) off++;
        count++;
      }
    }
  }
  return { mean: sum / count, offShare: off / count, comparedShare: count / (width * height * channels) };
}

describeEachDatabase(
  'Staging that respects the room: products replace staged pieces, restaging starts from the original',
  (dialect) => {
    const server = useImagingServer(dialect);
    let room: Buffer;
    beforeAll(async () => {
      room = await emptyRoomImage(1000, 700);
    });

    const rowOf = (id: string) =>
      server.services.db.selectFrom('images').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    const rowByUrl = (url: string) =>
      server.services.db
        .selectFrom('images')
        .selectAll()
        .where('storage_name', '=', new URL(url).pathname.split('/').pop()!)
        .executeTakeFirstOrThrow();
    const sceneOf = async (row: { scene: string | null }) => JSON.parse(row.scene!) as Scene;
    const stage = (key: string, image: Buffer, fields: Record<string, string> = {}) =>
      server.api.post('/api/v1/stage', {
        token: key,
        body: imageForm([{ data: image }], { room_type: 'living_room', ...fields }),
      });

    async function stagedRoom() {
      const { key } = await signUpWithKey(server.api);
      const staged = await stage(key, room);
      expect(staged.status).toBe(200);
      const image = staged.body.images[0];
      const scene = await sceneOf(await rowOf(image.id));
      const { bytes } = await fetchImage(server, image.image_url);
      return { key, image, scene, bytes };
    }

    it("place-products by image_id puts the sponsored sofa in the staged sofa's box and leaves the rest as staged", async () => {
      const { key, image, scene, bytes } = await stagedRoom();
      const sofa = scene.pieces.find((piece) => piece.category === 'sofa')!;
      const placed = await server.api.post('/api/v1/place-products', {
        token: key,
        json: { image_id: image.id, max_products: 3 },
      });
      expect(placed.status).toBe(200);
      const sponsoredSofa = placed.body.placements.find(
        (placement: { category: string }) => placement.category === 'sofa',
      );
      expect(sponsoredSofa).toMatchObject({ product_id: 'prd_nordvik_alma_sofa', ...boxOf(sofa) });

      const { bytes: placedBytes, metadata } = await fetchImage(server, placed.body.image_url);
      expect(metadata).toMatchObject({ width: 1000, height: 700 });
      const outside = await differenceOutside(bytes, placedBytes, placed.body.placements);
      expect(outside.comparedShare).toBeGreaterThan(0.3);
      expect(outside.mean).toBeLessThan(0.5);
      expect(outside.offShare).toBeLessThan(0.002);

      // One sofa in the placed picture's scene, the sponsored one: the staged sofa was replaced, not drawn over.
      const placedScene = await sceneOf(await rowByUrl(placed.body.image_url));
      expect(placedScene.pieces.filter((piece) => piece.category === 'sofa')).toEqual([
        expect.objectContaining({ source: 'products', product_id: 'prd_nordvik_alma_sofa', ...boxOf(sofa) }),
      ]);
      expect(placedScene.pieces.filter((piece) => piece.source === 'furniture')).toHaveLength(
        scene.pieces.length -
          placed.body.placements.filter((p: { category: string }) =>
            scene.pieces.some((piece) => piece.category === p.category),
          ).length,
      );
    });

    it('recognises a staged picture uploaded again and replaces its sofa the same way', async () => {
      const { key, image, scene, bytes } = await stagedRoom();
      const placed = await server.api.post('/api/v1/place-products', {
        token: key,
        body: imageForm([{ data: bytes }], { max_products: '1' }),
      });
      expect(placed.status).toBe(200);
      expect(placed.body.placements).toEqual([
        expect.objectContaining({
          category: 'sofa',
          ...boxOf(scene.pieces.find((piece) => piece.category === 'sofa')!),
        }),
      ]);
      expect(await rowByUrl(placed.body.image_url)).toMatchObject({
        kind: 'placed',
        source_image_id: image.id,
        room_type: 'living_room',
        style: 'modern',
      });
    });

    it('stages a staged picture sent back in from its original: the same furniture, not a second set', async () => {
      const { key, scene, bytes } = await stagedRoom();
      const again = await stage(key, bytes);
      expect(again.status).toBe(200);
      expect(again.body.credits_used).toBe(1);
      const restaged = await rowOf(again.body.images[0].id);
      expect((await sceneOf(restaged)).pieces).toHaveLength(scene.pieces.length);
      const { bytes: restagedBytes } = await fetchImage(server, again.body.image_url);
      const whole = await differenceOutside(bytes, restagedBytes, []);
      expect(whole.mean).toBeLessThan(0.5);
      // Another style on the staged picture is that style on the original.
      const industrial = await stage(key, bytes, { style: 'industrial' });
      const direct = await stage(key, room, { style: 'industrial' });
      const [a, b] = await Promise.all(
        [industrial, direct].map((response) => fetchImage(server, response.body.image_url)),
      );
      expect((await differenceOutside(a!.bytes, b!.bytes, [])).mean).toBeLessThan(0.5);
    });

    it('stages a picture with placed products from the photo under them', async () => {
      const { key, image, scene, bytes } = await stagedRoom();
      const placed = await server.api.post('/api/v1/place-products', { token: key, json: { image_id: image.id } });
      const { bytes: placedBytes } = await fetchImage(server, placed.body.image_url);
      const again = await stage(key, placedBytes);
      expect(again.status).toBe(200);
      const restagedScene = await sceneOf(await rowOf(again.body.images[0].id));
      expect(restagedScene.pieces).toHaveLength(scene.pieces.length);
      expect(restagedScene.pieces.every((piece) => piece.source === 'furniture')).toBe(true);
      // No sponsored product shows through: the result is the first staging again.
      const { bytes: restagedBytes } = await fetchImage(server, again.body.image_url);
      expect((await differenceOutside(bytes, restagedBytes, [])).mean).toBeLessThan(0.5);
    });

    it('keeps the original in storage under a name /images never serves', async () => {
      const { image } = await stagedRoom();
      const row = await rowOf(image.id);
      expect(row.original_storage_name).toMatch(/^src_\w+\.jpg$/);
      expect((await server.services.storage.get(row.original_storage_name!))?.data.equals(room)).toBe(true);
      const response = await fetch(new URL(`/images/${row.original_storage_name}`, server.url));
      expect(response.status).toBe(404);
    });

    it("does not use another account's original: their staged picture is a plain photo to a stranger", async () => {
      const { bytes } = await stagedRoom();
      const stranger = await signUpWithKey(server.api);
      const staged = await stage(stranger.key, bytes);
      expect(staged.status).toBe(200);
      const row = await rowOf(staged.body.images[0].id);
      expect((await server.services.storage.get(row.original_storage_name!))?.data.equals(bytes)).toBe(true);
    });

    describe('on a photo Roomstage did not stage', () => {
      it('places products only where the floor is free, and places again without stacking', async () => {
        const { key } = await signUpWithKey(server.api);
        const first = await server.api.post('/api/v1/place-products', {
          token: key,
          body: imageForm([{ data: room }], { max_products: '3' }),
        });
        expect(first.status).toBe(200);
        expect(first.body.placements.length).toBeGreaterThan(0);
        const { bytes } = await fetchImage(server, first.body.image_url);
        const second = await server.api.post('/api/v1/place-products', {
          token: key,
          body: imageForm([{ data: bytes }], { max_products: '3' }),
        });
        expect(second.status).toBe(200);
        // Our own output comes back: the same products take their own boxes again instead of a second copy beside them.
        expect(second.body.placements).toEqual(first.body.placements);
      });
    });
  },
);
