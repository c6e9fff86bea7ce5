/** Changes of edges that are no change of the building: a new tone, or decor hung on plain wall. */
import type { Grey } from './picture.js';
import type { RoomLines } from './room-lines.js';
import type { EdgeChange } from './structure.js';

/** Grey-level correlation of the two pictures in a change's box from which it is the same content under a new tone. */
const SAME_CONTENT = 0.8;
/** ...and its brightness against the surroundings changed by at most this share (a recoloured surface does). */
const SAME_LIGHT = 0.08;
/** A new thing on the wall darker than this share of the wall around it, mostly added edges, is wall decor. */
const HUNG_BRIGHT = 0.9;
const HUNG_LOST_SHARE = 0.35;
/** Wall decor's bottom stays above this share of the wall, from the ceiling line down (a door reaches the floor). */
const HUNG_BOTTOM = 0.85;
/** Wall decor (a picture, a mirror) is at most this share of the wall's height tall; a window or door is taller. */
const HUNG_HEIGHT = 0.4;
/** The spot it hangs on was plain wall: about as bright as its surroundings in the photo. */
const PLAIN_MIN = 0.8;
const PLAIN_MAX = 1.25;
/** A change is one-sided when at most this share of its edges goes the other way. */
const ONE_SIDED = 0.2;
const LINE_ASPECT = 4;

/**
 * Whether a structural change is no change of the building, judged from what both pictures show in its box and in a
 * ring around it: the same content under a new tone (a one-sided edge change, the grey levels still correlated, the
 * box as bright against its surroundings as before, and not a long line between two surfaces, which a repaint would
 * sharpen or soften), or a picture, mirror or the like hung on what was plain wall (mostly added edges, darker than
 * the wall around it, at most HUNG_HEIGHT of the wall tall, its bottom clear of the floor line). An opening shows
 * daylight, brighter than the wall, or is as tall as a door.
 */
export function appraise(change: EdgeChange, before: Grey, after: Grey, room?: RoomLines): boolean {
  const { width, height } = before;
  const [bx, by, bw, bh] = change.box;
  const x0 = Math.max(0, bx);
  const y0 = Math.max(0, by);
  const x1 = Math.min(width, bx + bw);
  const y1 = Math.min(height, by + bh);
  let n = 0;
  let sa = 0;
  let sb = 0;
  let saa = 0;
  let sbb = 0;
  let sab = 0;
  for (let y = y0; y < y1; y++)
    for (let x = x0, i = y * width + x0; x < x1; x++, i++) {
      const a = before.data[i] as number;
      const b = after.data[i] as number;
      n++;
      sa += a;
      sb += b;
      saa += a * a;
      sbb += b * b;
      sab += a * b;
    }
  const va = saa / n - (sa / n) ** 2;
  const vb = sbb / n - (sb / n) ** 2;
  const same = va > 1 && vb > 1 ? (sab / n - (sa / n) * (sb / n)) / Math.sqrt(va * vb) : 0;
  const pad = Math.max(4, Math.round(0.25 * Math.min(bw, bh)));
  let rn = 0;
  let rs = 0;
  let rsBefore = 0;
  for (let y = Math.max(0, y0 - pad); y < Math.min(height, y1 + pad); y++)
    for (let x = Math.max(0, x0 - pad); x < Math.min(width, x1 + pad); x++) {
      if (x >= x0 && x < x1 && y >= y0 && y < y1) continue;
      rn++;
      rs += after.data[y * width + x] as number;
      rsBefore += before.data[y * width + x] as number;
    }
  const bright = rn && rs > 0 ? sb / n / (rs / rn) : 1;
  const brightBefore = rn && rsBefore > 0 ? sa / n / (rsBefore / rn) : 1;
  const total = change.lost + change.added;
  const lostShare = total > 0 ? change.lost / total : 0;
  // The same content, only lighter, darker, sharper or softer (a tone change): nothing was built or removed.
  // A tone change only weakens or only strengthens edges; a line that shifted loses and gains them side by side.
  const oneSided = lostShare >= 1 - ONE_SIDED || lostShare <= ONE_SIDED;
  // A long thin change is the line between two surfaces, whose contrast changes when one of them is repainted.
  const line = Math.max(bw, bh) >= LINE_ASPECT * Math.min(bw, bh);
  const tone = oneSided && !line && same >= SAME_CONTENT && Math.abs(bright / brightBefore - 1) <= SAME_LIGHT;
  // Something new hung on the wall, darker than the wall around it and short of the floor: a picture, a mirror, a
  // curtain. An opening shows daylight (brighter than the wall) or, as a door, reaches the floor.
  // It hangs on what was plain wall (not where a bright window was) and its bottom stays clear of the floor line.
  const plainBefore = brightBefore >= PLAIN_MIN && brightBefore <= PLAIN_MAX;
  const hangs = room ? y1 <= room.ceiling + HUNG_BOTTOM * (room.floor - room.ceiling) : true;
  // Pictures and mirrors are smaller than windows and doors.
  const modest = y1 - y0 <= HUNG_HEIGHT * (room ? room.floor - room.ceiling : height);
  const hung = lostShare <= HUNG_LOST_SHARE && hangs && modest && plainBefore && bright < HUNG_BRIGHT;
  return tone || hung;
}
