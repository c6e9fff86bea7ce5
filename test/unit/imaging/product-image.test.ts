import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../../server/errors.js';
import { prepareProductImage } from '../../../server/imaging/product-image.js';

/** A transparent PNG of the given size (flat pixels compress to a few kilobytes even at 8000×8000). */
function transparentPng(width: number, height: number): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } } })
    .png({ compressionLevel: 9 })
    .toBuffer();
}

describe('Product images', () => {
  it('calls an 8000×8000 transparent PNG too large (not undecodable), from its header alone', async () => {
    const refusal = await prepareProductImage(await transparentPng(8000, 8000)).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(AppError);
    expect((refusal as AppError).code).toBe('invalid_image');
    expect((refusal as AppError).message).toBe(
      'The product image is too large: it must be 200–4000 px a side (got 8000×8000).',
    );
  });

  it('calls a 100×100 one too small and accepts a 400×300 one', async () => {
    const small = await prepareProductImage(await transparentPng(100, 100)).catch((error: unknown) => error);
    expect((small as AppError).message).toMatch(/^The product image is too small/);
    const fine = await prepareProductImage(await transparentPng(400, 300));
    expect({ width: fine.width, height: fine.height }).toEqual({ width: 400, height: 300 });
  });
});
