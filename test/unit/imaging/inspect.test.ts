import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { createImageEngine } from '../../../server/imaging/sharp-engine.js';
import { emptyRoomImage, rejection } from './fixtures.js';

const engine = createImageEngine();

describe('inspect', () => {
  it('accepts a JPEG and reports its format and size', async () => {
    const jpeg = await emptyRoomImage(640, 480);
    await expect(engine.inspect(jpeg)).resolves.toEqual({ format: 'jpeg', width: 640, height: 480 });
  });

  it('detects the format from the bytes, for PNG, WebP, AVIF and TIFF', async () => {
    const base = sharp({ create: { width: 300, height: 240, channels: 3, background: '#88aacc' } });
    for (const [format, bytes] of [
      ['png', await base.clone().png().toBuffer()],
      ['webp', await base.clone().webp().toBuffer()],
      ['avif', await base.clone().avif().toBuffer()],
      ['tiff', await base.clone().tiff().toBuffer()],
    ] as const) {
      await expect(engine.inspect(bytes)).resolves.toEqual({ format, width: 300, height: 240 });
    }
  });

  it('rejects a truncated JPEG as an invalid image', async () => {
    const jpeg = await emptyRoomImage(800, 600);
    const error = await rejection(engine.inspect(jpeg.subarray(0, Math.floor(jpeg.length / 2))));
    expect(error).toMatchObject({ code: 'invalid_image' });
  });

  it('rejects text bytes as an invalid image', async () => {
    const error = await rejection(
      engine.inspect(Buffer.from('this is not a picture, just text renamed to .png\n'.repeat(20))),
    );
    expect(error).toMatchObject({ code: 'invalid_image' });
  });

  it('rejects a GIF as an unsupported media type', async () => {
    const gif = await sharp({ create: { width: 300, height: 300, channels: 3, background: '#ff0000' } })
      .gif()
      .toBuffer();
    expect(await rejection(engine.inspect(gif))).toMatchObject({ code: 'unsupported_media_type' });
  });

  it('rejects an SVG as an unsupported media type without rendering it', async () => {
    const svg = Buffer.from('<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg" width="400" height="400"/>');
    expect(await rejection(engine.inspect(svg))).toMatchObject({ code: 'unsupported_media_type' });
  });

  it('rejects more than 15 MB as payload too large', async () => {
    const jpeg = await emptyRoomImage(400, 300);
    const big = Buffer.concat([jpeg, Buffer.alloc(16 * 1024 * 1024 - jpeg.length)]);
    expect(await rejection(engine.inspect(big))).toMatchObject({ code: 'payload_too_large' });
  });

  it('rejects a 100×100 image as too small', async () => {
    const small = await sharp({ create: { width: 100, height: 100, channels: 3, background: '#ccc' } })
      .png()
      .toBuffer();
    expect(await rejection(engine.inspect(small))).toMatchObject({
      code: 'invalid_image',
      message: expect.stringContaining('200'),
    });
  });

  it('refuses a 60-megapixel image from its header, without decoding it', async () => {
    const huge = await sharp({ create: { width: 7746, height: 7746, channels: 3, background: '#777' } })
      .png({ compressionLevel: 9 })
      .toBuffer();
    const started = performance.now();
    const error = await rejection(engine.inspect(huge));
    expect(performance.now() - started).toBeLessThan(150);
    expect(error).toMatchObject({ code: 'invalid_image', message: expect.stringContaining('megapixels') });
    // The operations refuse it the same way, before any pixel work.
    expect(await rejection(engine.stage(huge, { style: 'modern', roomType: 'living_room' }))).toMatchObject({
      code: 'invalid_image',
    });
  }, 30_000);

  it('reports width and height after EXIF orientation', async () => {
    const rotated = await sharp(await emptyRoomImage(600, 400))
      .withMetadata({ orientation: 6 })
      .jpeg()
      .toBuffer();
    await expect(engine.inspect(rotated)).resolves.toMatchObject({ width: 400, height: 600 });
  });

  it('maps a decode failure inside the pipeline to invalid_image', async () => {
    // Cut mid-stream but keep the end chunk, so the header checks pass and only decoding can tell.
    const png = await emptyRoomImage(800, 600, 'png');
    const damaged = Buffer.concat([png.subarray(0, Math.floor(png.length / 2)), png.subarray(png.length - 12)]);
    await expect(engine.inspect(damaged)).resolves.toMatchObject({ format: 'png' });
    expect(await rejection(engine.enhance(damaged))).toMatchObject({ code: 'invalid_image' });
  });
});
