import jsQRModule from 'jsqr';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { markBox } from '../../../server/imaging/disclosure-mark.js';
import { qrBox } from '../../../server/imaging/disclosure-qr.js';
import { finishOutput } from '../../../server/imaging/finish.js';

// jsqr is CommonJS typed with an ES default: depending on the loader the default import is the function or its module.
const jsQR = ((jsQRModule as unknown as { default?: unknown }).default ?? jsQRModule) as typeof jsQRModule.default;

const URL_OF_A_PAGE = 'https://roomstage.example.com/o/Ab3dEf6hIj9kLm2nOp5qRs8tUv';

async function finished(width: number, height: number): Promise<Buffer> {
  const photo = sharp({ create: { width, height, channels: 3, background: { r: 176, g: 160, b: 140 } } });
  return finishOutput(photo, { width, height }, { label: 'virtually_staged', qrUrl: URL_OF_A_PAGE }).toBuffer();
}

describe('The QR code beside the disclosure mark', () => {
  for (const [width, height] of [
    [200, 200],
    [640, 400],
    [400, 900],
    [4000, 3000],
  ] as const) {
    it(`scans after the JPEG encoding and keeps clear of the mark at ${width}×${height}`, async () => {
      const { data, info } = await sharp(await finished(width, height))
        .ensureAlpha()
        .raw()
        .toBuffer({ resolveWithObject: true });
      expect(jsQR(new Uint8ClampedArray(data), info.width, info.height)?.data).toBe(URL_OF_A_PAGE);
      const qr = qrBox(width, height, 29);
      const mark = markBox(width, height);
      expect(qr.left + qr.size).toBeLessThan(mark.left);
      expect(qr.top + qr.size).toBeLessThanOrEqual(height);
      // Small: never more than a fifth of the short edge on a photo of ordinary size.
      if (Math.min(width, height) >= 400) expect(qr.size).toBeLessThanOrEqual(Math.min(width, height) / 5);
    });
  }
});
