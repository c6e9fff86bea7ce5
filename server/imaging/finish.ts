/**
 * The one last step every staged or decluttered output goes through, whichever engine drew it: what is drawn over
 * the picture (the built-in engine's furniture), then the disclosure mark (and QR code) when the request asks for it, sRGB, and
 * the staged JPEG encoding. The pipeline must already be at the output's size.
 */
import type { OverlayOptions, Sharp } from 'sharp';
import { markBox, markOverlay } from './disclosure-mark.js';
import { qrOverlay, qrRegion } from './disclosure-qr.js';
import type { Disclosure } from './engine.js';
import type { FidelityRegion } from './fidelity/index.js';

/** Every staged output, whichever engine drew it, is encoded with these settings. */
export const STAGED_JPEG = { quality: 88, chromaSubsampling: '4:2:0' } as const;

export function finishOutput(
  pipeline: Sharp,
  size: { width: number; height: number },
  options: { overlays?: OverlayOptions[] } & Disclosure = {},
): Sharp {
  // sharp keeps only the last composite() of a pipeline, so the mark and the QR code join the same list, drawn last.
  const overlays = [...(options.overlays ?? [])];
  if (options.label === 'virtually_staged') overlays.push(markOverlay(size.width, size.height));
  if (options.qrUrl) overlays.push(qrOverlay(options.qrUrl, size.width, size.height));
  return pipeline.composite(overlays).toColourspace('srgb').jpeg(STAGED_JPEG);
}

/** Where finishOutput draws the disclosure on a picture of this size: the fidelity check does not count it as a change. */
export function disclosureRegions(size: { width: number; height: number }, options: Disclosure): FidelityRegion[] {
  const regions: FidelityRegion[] = [];
  if (options.label === 'virtually_staged') {
    const { left, top, width, height } = markBox(size.width, size.height);
    regions.push({ x: left, y: top, width, height });
  }
  if (options.qrUrl) {
    const { left, top, size: side } = qrRegion(options.qrUrl, size.width, size.height);
    regions.push({ x: left, y: top, width: side, height: side });
  }
  return regions;
}
