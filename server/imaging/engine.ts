/**
 * The image engine seam: routers and domain code call this interface, never sharp directly,
 * so an AI/GPU staging engine can replace the sharp one without touching callers.
 */
import type { RoomType, Style } from './catalog-data.js';

export type AcceptedFormat = 'jpeg' | 'png' | 'webp' | 'avif' | 'tiff';

export interface ImageInfo {
  format: AcceptedFormat;
  /** After EXIF orientation. */
  width: number;
  height: number;
}

export interface EngineImage {
  data: Buffer;
  contentType: string;
  extension: string;
  width: number;
  height: number;
}

export interface PlaceableProduct {
  id: string;
  name: string;
  brand: string;
  category: string;
  asset: string;
}

export interface Placement {
  product_id: string;
  name: string;
  brand: string;
  category: string;
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface ImageEngine {
  /** Validates bytes before any full decode; throws AppError. */
  inspect(input: Buffer): Promise<ImageInfo>;
  stage(input: Buffer, options: { style: Style; roomType: RoomType }): Promise<EngineImage>;
  enhance(input: Buffer): Promise<EngineImage>;
  placeProducts(
    input: Buffer,
    options: { products: PlaceableProduct[]; maxProducts: number },
  ): Promise<EngineImage & { placements: Placement[] }>;
}
