/**
 * The QR code some markets ask for beside the "Virtually staged" mark: it leads to the page of the unaltered original.
 * Drawn as raw pixels (whole pixels per module, black on white with its quiet zone), so resampling never blurs a
 * module edge and the code stays scannable after the JPEG encoding. It sits in the bottom-left corner, the mark in
 * the bottom-right, and never reaches the mark.
 */
import QRCode from 'qrcode';
import type { OverlayOptions } from 'sharp';
import { markBox } from './disclosure-mark.js';

/** Modules of white around the code, as the QR standard asks. */
const QUIET_ZONE = 4;
/** The code's side as a share of the picture's short edge, unless that would make modules smaller than MIN_MODULE. */
const SIDE_SHARE = 0.12;
const MIN_MODULE = 2;

export interface QrBox {
  left: number;
  top: number;
  size: number;
}

/** The modules of `url`'s code (true = dark), quiet zone excluded. */
function modulesOf(url: string): { count: number; dark(row: number, col: number): boolean } {
  const { modules } = QRCode.create(url, { errorCorrectionLevel: 'M' });
  return { count: modules.size, dark: (row, col) => modules.get(row, col) === 1 };
}

/** Where the code of a picture this size goes, and how many pixels each module gets. */
export function qrBox(width: number, height: number, moduleCount: number): QrBox & { modulePx: number } {
  const short = Math.min(width, height);
  const margin = Math.round(0.015 * short);
  const span = moduleCount + 2 * QUIET_ZONE;
  const room = Math.max(1, markBox(width, height).left - 2 * margin);
  let modulePx = Math.max(MIN_MODULE, Math.floor((SIDE_SHARE * short) / span));
  while (modulePx > 1 && span * modulePx > room) modulePx -= 1;
  const size = span * modulePx;
  return { left: margin, top: Math.max(0, height - size - margin), size, modulePx };
}

/** The square the QR code to `url` covers on a picture of this size, quiet zone included. */
export function qrRegion(url: string, width: number, height: number): QrBox {
  const { left, top, size } = qrBox(width, height, modulesOf(url).count);
  return { left, top, size };
}

/** The QR code to `url` as one sharp overlay for a picture of this size. */
export function qrOverlay(url: string, width: number, height: number): OverlayOptions {
  const code = modulesOf(url);
  const box = qrBox(width, height, code.count);
  const pixels = Buffer.alloc(box.size * box.size * 3, 255);
  for (let row = 0; row < code.count; row++) {
    for (let col = 0; col < code.count; col++) {
      if (!code.dark(row, col)) continue;
      const top = (row + QUIET_ZONE) * box.modulePx;
      const left = (col + QUIET_ZONE) * box.modulePx;
      for (let y = top; y < top + box.modulePx; y++)
        pixels.fill(0, (y * box.size + left) * 3, (y * box.size + left + box.modulePx) * 3);
    }
  }
  return { input: pixels, raw: { width: box.size, height: box.size, channels: 3 }, left: box.left, top: box.top };
}
