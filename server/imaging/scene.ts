/**
 * Scenes: the pieces an engine draws over an original photo, in drawing order. Rendering a scene, and changing one
 * for sponsored products: a product takes over the box of the piece of its category, or else a free box.
 */
import type { OverlayOptions } from 'sharp';
import { assetAspect, bucketWidth, getTile, type ShadowKind, tileOverlay } from './assets.js';
import type { PlaceableProduct, Placement, Scene, ScenePiece, SceneZone } from './engine.js';
import { findFreeBox } from './free-space.js';
import { DEFAULT_PRODUCT_SLOT, PRODUCT_SLOTS } from './furniture-sets.js';
import type { Box, RoomMap } from './room-map.js';
import { STYLE_LOOKS } from './styles.js';

export function shadowFor(zone: SceneZone): ShadowKind {
  return zone === 'rug' ? 'rug' : zone === 'wall' ? 'wall' : zone === 'ceiling' ? 'ceiling' : 'floor';
}

/** Draw order: rugs, then the wall and ceiling, then floor pieces from the back (higher bottom edge) to the front. */
export function drawOrder(zone: SceneZone, bottom: number): number {
  return zone === 'rug' ? -2e9 : zone === 'wall' || zone === 'ceiling' ? -1e9 : bottom;
}

/**
 * Where a drawing of the given aspect (height / width) goes inside its box: as large as fits, standing on the box's
 * bottom edge (floor), hanging from its top (ceiling) or centred (wall, rug). A drawing made for the box fills it.
 */
export function fitInBox(box: Box, zone: SceneZone, aspect: number): Box {
  const fits = box.height / aspect;
  let width = box.width;
  if (fits < box.width - 0.5) {
    width = bucketWidth(fits);
    if (width > fits) width = bucketWidth(fits / 1.03);
    width = Math.max(1, Math.min(width, box.width));
  }
  const height = Math.max(1, Math.min(box.height, Math.round(width * aspect)));
  const x = box.x + Math.round((box.width - width) / 2);
  const y =
    zone === 'floor'
      ? box.y + box.height - height
      : zone === 'ceiling'
        ? box.y
        : box.y + Math.round((box.height - height) / 2);
  return { x, y, width, height };
}

/** The overlays that draw the scene's pieces onto a picture of the given size, in scene order. */
export async function sceneOverlays(scene: Scene, width: number, height: number): Promise<OverlayOptions[]> {
  const palette = scene.style ? STYLE_LOOKS[scene.style].palette : null;
  const drawn = await Promise.all(
    scene.pieces.map(async (piece) => {
      const styled = piece.source === 'furniture' && palette !== null;
      const at = fitInBox(piece, piece.zone, await assetAspect(piece.source, piece.asset));
      const tile = await getTile(
        piece.source,
        piece.asset,
        styled ? palette : null,
        styled && scene.style ? scene.style : 'brand',
        at.width,
        shadowFor(piece.zone),
      );
      return tileOverlay(tile, at.x, at.y, width, height);
    }),
  );
  return drawn.filter((overlay): overlay is OverlayOptions => overlay !== null);
}

/**
 * Puts up to `maxProducts` products into the scene, in the order given: each replaces the first piece of its
 * category not yet replaced, keeping that piece's box and its place in the drawing order; a product whose category
 * the scene lacks goes into a free box of the room map, clear of every piece. Products that fit nowhere are skipped.
 */
export async function arrangeProducts(
  scene: Scene,
  map: RoomMap,
  products: readonly PlaceableProduct[],
  maxProducts: number,
): Promise<{ scene: Scene; placements: Placement[] }> {
  const pieces = [...scene.pieces];
  const replaced = new Set<ScenePiece>();
  const placements: Placement[] = [];
  const limit = Math.max(0, Math.floor(maxProducts));
  for (const product of products) {
    if (placements.length >= limit) break;
    const index = pieces.findIndex((piece) => piece.category === product.category && !replaced.has(piece));
    let piece: ScenePiece;
    const replacing = pieces[index];
    if (replacing) {
      piece = { ...replacing, source: 'products', asset: product.asset, product_id: product.id };
      pieces[index] = piece;
    } else {
      const spec = PRODUCT_SLOTS[product.category] ?? DEFAULT_PRODUCT_SLOT;
      const box = findFreeBox(map, spec, await assetAspect('products', product.asset), pieces);
      if (!box) continue;
      piece = {
        category: product.category,
        zone: spec.zone,
        source: 'products',
        asset: product.asset,
        product_id: product.id,
        ...box,
      };
      const order = drawOrder(piece.zone, box.y + box.height);
      const at = pieces.findIndex((other) => drawOrder(other.zone, other.y + other.height) > order);
      pieces.splice(at < 0 ? pieces.length : at, 0, piece);
    }
    replaced.add(piece);
    placements.push({
      product_id: product.id,
      name: product.name,
      brand: product.brand,
      category: product.category,
      x: piece.x,
      y: piece.y,
      width: piece.width,
      height: piece.height,
    });
  }
  return { scene: { style: scene.style, pieces }, placements };
}
