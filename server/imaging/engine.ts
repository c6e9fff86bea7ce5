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
  /** How long the engine call that drew it took (ms): set by the metered wrapper every engine runs behind. */
  engineMs?: number;
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

export type SceneZone = 'floor' | 'wall' | 'ceiling' | 'rug';

/**
 * One piece drawn into a picture: what it is (`category`), which artwork (`source`/`asset`) and the box it was
 * given. A product swapped into a piece's place keeps the box and is fitted inside it.
 */
export interface ScenePiece {
  category: string;
  zone: SceneZone;
  source: 'furniture' | 'products';
  asset: string;
  /** Set when a sponsored product fills this box. */
  product_id?: string;
  x: number;
  y: number;
  width: number;
  height: number;
}

/**
 * Everything an engine drew over an original photo, in drawing order, and the style whose colour grade and palette
 * it used (null: the photo kept its colours). Rendering the original with the scene gives the output again.
 */
export interface Scene {
  style: Style | null;
  pieces: ScenePiece[];
}

/** Whether an output carries the "Virtually staged" disclosure mark in a corner. */
export type Label = 'virtually_staged' | 'none';
export const LABELS = ['virtually_staged', 'none'] as const satisfies readonly Label[];

/**
 * What the finishing step draws to disclose staging: `label` the "Virtually staged" mark, `qrUrl` a QR code leading
 * to the page of the unaltered original.
 */
export interface Disclosure {
  label?: Label;
  qrUrl?: string;
}

/**
 * `seed`: the same request with the same seed gives the same picture (the built-in engine picks its furniture
 * arrangement from it, a generative one is sent it). `label`: the disclosure mark, drawn when the output is finished.
 */
export interface StageOptions extends Disclosure {
  style: Style;
  roomType: RoomType;
  seed?: number;
}

export interface DeclutterOptions extends Disclosure {
  seed?: number;
}

export type EngineName = 'builtin' | 'replicate' | 'openai' | 'comfyui';

/** What the running engine can do; requests asking for more are refused before any charge. */
export interface EngineCapabilities {
  engine: EngineName;
  /** Variations one stage request may ask for per image. */
  maxVariations: number;
  /** Whether `declutter` (emptying a furnished room) is available. */
  declutter: boolean;
  /** Whether outputs can carry the disclosure mark. */
  label: boolean;
}

/**
 * A remote engine's ENGINE_CONCURRENCY slots at its provider. Work that waits on a provider costs this process
 * nothing, so the job runner counts it apart and claims more jobs while the slots are busy (../domain/jobs/runner.ts).
 */
export interface ProviderSlots {
  readonly size: number;
  /** Images at the provider now. */
  readonly inUse: number;
  /** Calls `listener` once, the next time an image goes to the provider or comes back from it. */
  onceChanged(listener: () => void): void;
}

export interface ImageEngine {
  readonly capabilities: EngineCapabilities;
  /** Set by engines whose drawing is done elsewhere (a provider); absent, the work is all this process's. */
  readonly providerSlots?: ProviderSlots;
  /** Validates bytes before any full decode; throws AppError. */
  inspect(input: Buffer): Promise<ImageInfo>;
  /** Engines that know where they put the furniture say so in `scene`; callers keep it to re-render later. */
  stage(input: Buffer, options: StageOptions): Promise<EngineImage & { scene?: Scene }>;
  /** Removes the movable furniture and clutter, keeping the room; only where `capabilities.declutter` says so. */
  declutter(input: Buffer, options: DeclutterOptions): Promise<EngineImage>;
  enhance(input: Buffer): Promise<EngineImage>;
  /** An upright JPEG whose long edge is at most `maxEdge` (never enlarged): the dashboard's before/after views. */
  preview(input: Buffer, maxEdge: number): Promise<EngineImage>;
  /**
   * Without `scene`, `input` is any photo and products go only where its floor (or wall) is free. With `scene`,
   * `input` is the original that scene was drawn on: a product replaces the piece of its category, in the same box,
   * and the rest go into free space around the scene.
   */
  placeProducts(
    input: Buffer,
    options: { products: PlaceableProduct[]; maxProducts: number; scene?: Scene },
  ): Promise<EngineImage & { placements: Placement[]; scene?: Scene }>;
}
