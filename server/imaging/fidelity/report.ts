/** What the fidelity check reports: the kinds of change, and boxes brought from the working grid to the photo. */
/** What changed, as the API reports it. */
export const CHANGE_KINDS = [
  'opening_removed',
  'opening_added',
  'opening_moved',
  'wall_moved',
  'builtin_changed',
  'surface_recoloured',
  'unaligned',
] as const;
export type ChangeKind = (typeof CHANGE_KINDS)[number];

/** One change: its kind and its box `[x, y, width, height]` in the photo's pixels (after EXIF orientation). */
export interface FidelityChange {
  kind: ChangeKind;
  box: [number, number, number, number];
}

/** A change found on the working grid: box `[x, y, w, h]` in work pixels, `size` to rank it. */
export interface WorkChange {
  kind: ChangeKind;
  box: [number, number, number, number];
  size: number;
}

/** A working-grid box in the photo's pixels (`scale`: photo pixels per work pixel). */
export function inPhoto(box: [number, number, number, number], scale: { x: number; y: number }): FidelityChange['box'] {
  const x = Math.max(0, Math.floor(box[0] * scale.x));
  const y = Math.max(0, Math.floor(box[1] * scale.y));
  return [
    x,
    y,
    Math.max(1, Math.ceil((box[0] + box[2]) * scale.x) - x),
    Math.max(1, Math.ceil((box[1] + box[3]) * scale.y) - y),
  ];
}

/** A box `[x, y, width, height]` as `[x0, y0, x1, y1]` (right and bottom exclusive). */
export function corners([x, y, w, h]: readonly number[]): [number, number, number, number] {
  return [x as number, y as number, (x as number) + (w as number), (y as number) + (h as number)];
}
