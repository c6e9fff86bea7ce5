/** Changes of edges that are no change of the building: a new tone, or decor hung on plain wall. */
import { binOfRank, EDGE_MIN, gradientAt, UPRIGHT } from './edges.js';
import type { FurniturePiece } from './furniture.js';
import type { Grey } from './picture.js';
import type { RoomLines } from './room-lines.js';
import type { EdgeChange } from './structure.js';
import { filled } from '../filled.js';

/**
 * Grey-level correlation of the two pictures in a change's box (blockCorrelation) from which it is the same content
 * under a new tone.
 */
const SAME_CONTENT = 0.8;
/**
 * ...and its brightness against the surroundings within this share of what the picture-wide tone curve makes of it
 * (a recoloured surface moves away from it).
 */
const SAME_LIGHT = 0.08;
/**
 * Content this close to the photo's (grey-level correlation) under that brightness is a tone change whatever the
 * change's shape or the mix of its edges: a low-light edit both brings a wall's corner out of the dark, a long thin
 * change, and washes a window's view out while lifting the curtain beside it.
 */
const SAME_CONTENT_CLOSE = 0.95;
/** A new thing on the wall darker than this share of the wall around it, mostly added edges, is wall decor. */
const HUNG_BRIGHT = 0.9;
const HUNG_LOST_SHARE = 0.35;
/** Wall decor's bottom stays above this share of the wall, from the ceiling line down (a door reaches the floor). */
export const HUNG_BOTTOM = 0.85;
/** Wall decor (a picture, a mirror) is at most this share of the wall's height tall; a window or door is taller. */
const HUNG_HEIGHT = 0.4;
/** The spot it hangs on was plain wall: about as bright as its surroundings in the photo. */
const PLAIN_MIN = 0.8;
const PLAIN_MAX = 1.25;
/** A change is one-sided when at most this share of its edges goes the other way. */
const ONE_SIDED = 0.2;
const LINE_ASPECT = 4;
/**
 * A curtain panel hung beside a window: at least DRAPE_TALL times as tall as it is wide, hanging from no lower than
 * DRAPE_TOP of the wall below the ceiling line, its added edges mostly vertical (DRAPE_VERTICAL of them: the folds)
 * and dense (DRAPE_DENSITY of its box's pixels: fabric, not one shifted line), at least half as many added edges as
 * lost ones (the part of the window it covers), and in a colour of its own: its chromaticity (r, g, b shares) at
 * least DRAPE_HUE from both what was there before and the wall around it (a wall corner shifted, or a door walled up,
 * keeps the wall's colour).
 */
export const DRAPE_TALL = 2;
export const DRAPE_TOP = 0.15;
const DRAPE_VERTICAL = 0.6;
const DRAPE_DENSITY = 0.06;
const DRAPE_HUE = 0.03;
/**
 * A panel drawn over a window's frame loses the frame's edges and adds its folds where the frame's stood, so its added
 * edges say little. Its own picture says more: at least FOLD_DENSE of its box's pixels in the output on an edge (a
 * Sobel step of FOLD_EDGE), and at least FOLD_VERTICAL of those running up and down, the way fabric hangs; and it is
 * in a colour of its own (DRAPE_HUE), or in a shade of its own (at most FOLD_DARK as bright as the wall around it: a
 * plum curtain on a cream wall, or a wine one on a red wall, differs from it in lightness more than in hue), or hangs
 * by a window: at least FOLD_WINDOW of the photo, across the panel and its own width on either side, shows daylight
 * (a window at night, or behind blinds, shows none). A pale panel on a pale wall away from any window could as well
 * be a column or a casing added. A panel told only by its added edges (DRAPE_*) must hang by a window: on a plain
 * wall, a concrete pillar's or a built-in's side draws upright edges in a colour of its own just as well. Where the
 * photo showed plain wall, a panel that shows daylight on more of it than framed decor may (FRAMED_DAYLIGHT) and is
 * brighter than the wall (SOLID_BRIGHT) is a tall window's panes, not fabric, which the room lights.
 */
const FOLD_EDGE = 40;
const FOLD_DENSE = 0.55;
const FOLD_VERTICAL = 0.75;
const FOLD_WINDOW = 0.05;
const FOLD_DARK = 0.75;
/**
 * Wall decor drawn at any size (a large canvas, a mirror): a compact object (both sides at least FRAMED_MIN pixels,
 * at most FRAMED_ASPECT times as long as wide) whose added edges fill its box (FRAMED_DENSITY of its pixels, and
 * FRAMED_SPAN of its rows and of its columns), hung on plain wall, at most FRAMED_HEIGHT of the wall tall (the wall
 * between the lines found, which often reads short: behind a bed or a table the floor line lands on the furniture's
 * top; at half the wall, framed pictures over beds were refused; on a side wall near the camera, that wall: wallAt),
 * and not showing daylight: at most FRAMED_DAYLIGHT of it is much brighter than the wall around it (DAYLIGHT_GAIN, or
 * near white at DAYLIGHT_LEVEL) and nearly grey (DAYLIGHT_GREY: sky and blown-out glass have little colour), unless
 * it is a print in a light mat (MAT_*) or lit by the room (ROOM_LIT_*).
 */
const FRAMED_MIN = 12;
const FRAMED_ASPECT = 3;
const FRAMED_DENSITY = 0.12;
const FRAMED_SPAN = 0.6;
const FRAMED_HEIGHT = 0.65;
const FRAMED_DAYLIGHT = 0.2;
/**
 * What rises this share of the back wall above its ceiling line, with as much plain wall above it, rises past the line
 * rather than running up to it (risesPastCeiling): framed decor hung below a ceiling the line was not found on
 * (belowCeiling), or furniture and what it joins seen nearer the camera (bringsNoView).
 */
const CLEAR_ABOVE = 0.05;
/**
 * Decor whatever the wall's lines say (a canvas over a sofa seen from a low camera, where the back wall's ceiling line
 * is found too low and the bounds above refuse it): a compact object in one piece (no glazing bar or frame line across
 * it) made almost only of new edges (at most SOLID_LOST of them lost), filling SOLID_DENSITY of its box, wider than
 * tall (at most SOLID_TALL of its width: a door, and a door's or a window's top seen over a sofa, stand upright), at
 * most SOLID_WIDE of the picture wide, its bottom SOLID_FLOOR of the wall above the floor line (a column or a cupboard
 * stands on it), no brighter than SOLID_BRIGHT times the wall around it, and showing no daylight, no sky and nothing
 * outdoors (looksOutdoors): none of a window's signs.
 */
const SOLID_LOST = 0.15;
const SOLID_DENSITY = 0.065;
const SOLID_TALL = 0.9;
const SOLID_WIDE = 0.45;
const SOLID_FLOOR = 0.05;
const SOLID_BRIGHT = 1.1;
/**
 * A thing set in front of the wall, drawn in no straight line: the building is drawn in straight lines (a window's
 * frame and bars, a door's jambs, a wall's corner, a beam; in perspective at any angle), a plant, dried branches or a
 * lamp's open frame in none. Something new with no straight run among its added edges as long as FREE_FORM_LINE of
 * its longer side (or its whole chord, in any direction looked at every FREE_FORM_STEP degrees, a pixel's slack either
 * side), on what was plain wall, compact and at most SOLID_WIDE of the picture wide, reaching below the ceiling line,
 * showing no daylight and nothing outdoors, through which the photo shows (the output within SEE_SAME grey levels of
 * the photo under the tone curve) on at least SEE_THROUGH of its box, is decor: an opening hides the wall inside its
 * frame, a new surface covers it whole.
 */
const FREE_FORM_LINE = 0.4;
const FREE_FORM_STEP = 3;
const SEE_THROUGH = 0.35;
const SEE_SAME = 12;
/**
 * ...and showing no sky: the band between SKY_FROM and SKY_TO of its height, SKY_INSET in from either side (inside a
 * frame), mostly blue (SKY_SHARE of its pixels bluer than red by SKY_BLUE levels) and smooth (grey levels spread at
 * most SKY_EVEN of the wall's brightness). A window's view has a sky at its top more often than a picture has a smooth
 * one.
 */
const SKY_FROM = 0.12;
const SKY_TO = 0.4;
const SKY_INSET = 0.15;
const SKY_SHARE = 0.5;
const SKY_BLUE = 15;
const SKY_EVEN = 0.15;
/** ...and, lit by the room like the wall it hangs on, no brighter than that wall on the whole (a view is daylit). */
const FRAMED_BRIGHT = 1.05;
/**
 * A print in a light mat may be brighter than the wall and show "daylight": white paper or a white jersey lit by the
 * room outshines a beige or tan wall, grey as blown-out glass. It is told by its middle: the band around its edge
 * (MAT_BAND of its width and height) at least as bright as the wall around it, and its middle (MAT_CORE in from each
 * side) at most MAT_DARKER as bright as that band and showing no daylight (FRAMED_DAYLIGHT). A window's view is
 * daylight, no darker than the frame around it: none of the set's windows pasted on its walls (110 over two seeds)
 * has its middle a fifth darker than a band as bright as the wall. A window at night does (a white frame around a
 * black view), and passes as such a print, as dim windows pass as prints darker than the wall.
 */
const MAT_BAND = 0.12;
const MAT_CORE = 0.3;
const MAT_DARKER = 0.8;
/**
 * White paper or canvas on a dim wall (beige, red, dark wood) reads as daylight too: near grey and a third brighter
 * than the wall. But it is lit by the room's own lamps and windows, so it is no brighter than what the room lights
 * elsewhere, while a view is daylight and as bright as the photo's brightest. Framed decor showing such "daylight" and
 * nothing outdoors (looksOutdoors) is a print when its bright part (the brightest ROOM_LIT_TOP of it, OUTDOOR_INSET in
 * from its sides) is at most ROOM_LIT as bright as the photo's brightest (its brightest PHOTO_TOP, brought to the
 * output's tone by the picture-wide tone curve). A window whose grey view is dimmer than that (behind closed blinds,
 * at night) passes as such a print, as a dim window passes as a print darker than the wall: of the set's windows hung
 * on its other photos' walls, 14 of 2100 more pass, for 42 of its 1190 pieces of decor.
 */
const ROOM_LIT_TOP = 0.1;
const PHOTO_TOP = 0.01;
const ROOM_LIT = 0.8;
const DAYLIGHT_GAIN = 1.3;
const DAYLIGHT_LEVEL = 235;
const DAYLIGHT_GREY = 0.25;
/**
 * A window is divided into panes: a straight added line crossing the middle of the box (away from its outer
 * MULLION_MARGIN on either side) over at least MULLION_SPAN of the new thing's height or width, frame to frame, is a
 * mullion or transom. A picture's mat has inner edges too, but nearer the frame and shorter than the whole picture.
 */
const MULLION_MARGIN = 0.3;
/** ...with at least this share of daylight showing between them (a picture's mat is lit like the wall, not blown out). */
const PANE_DAYLIGHT = 0.05;
const MULLION_SPAN = 0.8;
/**
 * Panes look out of doors; a print does not. Framed decor crossed by a line of its own (a print's horizon, a mat's
 * inner edge, the gaps of a collage, a clock's hands), hung below the ceiling line, is told from a window by what lies
 * inside its frame (OUTDOOR_INSET of its width and height in from each side): a window's view shows foliage (greener
 * than red by FOLIAGE_GREEN and no less green than blue) on at least OUTDOOR_GREEN of it, or sky (bluer than red by
 * SKY_BLUE) on at least OUTDOOR_SKY. A window onto a grey street, into a lit room or onto autumn leaves (as yellow as
 * red) shows neither, and passes as a print when it is as dark as one.
 * Framed decor that no bar divides at its middle is a print, however green (a painted landscape, a botanical print),
 * unless a bar crosses it inside its frame (OUTDOOR_INSET in: a casement's bars beside fixed panes stand nearer its
 * sides than a mullion) with a view on both sides of it (foliage or sky on at least GLAZED_VIEW of the frame's inside
 * either side), and it is as bright against the wall as a view is (VIEW_SKY). A painted landscape's deep greens and
 * dusk sky are darker (0.64–0.68 of the wall measured in the probes); windows barred so, pasted on the set's walls,
 * 0.76 and brighter. Two green prints hung side by side are one change whose "bar" is a mat's inner edge, with the
 * print on one side of it and the white mat on the other.
 */
const OUTDOOR_INSET = 0.15;
const FOLIAGE_GREEN = 5;
const OUTDOOR_GREEN = 0.05;
const OUTDOOR_SKY = 0.1;
/**
 * Told against the wall the decor hangs on, a view is lit by day: its sky is at least SKY_LIT of the wall's
 * brightness (a sky is often darker than a white wall beside it, but a blue suit, sofa or bedspread in a picture or on
 * a screen is darker still), and its foliage at least LEAF_LIT (trees in shade are dark, but a near-black pixel's hue
 * is noise: a screen's dark greens).
 */
const SKY_LIT = 0.6;
const LEAF_LIT = 0.1;
/**
 * A television hung on a wall: a compact thing (FRAMED_MIN, FRAMED_ASPECT) of mostly new edges on what was plain wall,
 * whose middle half (SCREEN_CORE of its width and height in from each side) is dark, on average at most SCREEN_DARK of
 * the wall around it, and even, its grey levels spread (standard deviation) at most SCREEN_EVEN of that wall's
 * brightness: black glass reflects a soft gradient, while a view, a doorway into a furnished room or a print is
 * busier. No bar divides it (MULLION_*): a window with a dim view is as dark and as even between its glazing bars. It
 * may be any size, since a screen on a side wall near the camera looks taller than the back wall, but it must end on
 * the wall: the band below it (SCREEN_BELOW_BAND of its height), across its middle, is at least SCREEN_BELOW as bright
 * as the wall around it. A dark door or a doorway goes on down to the floor. The change may hold only the screen's top,
 * its lower part hanging where furniture stands (whose edges are not compared): the band is then looked for below
 * where the screen ends, its middle's rows as dark as its core (SCREEN_DARK), at most the change's own height further
 * down (SCREEN_REACH), and the photo must show plain wall down past that band (its first line below the change, a
 * skirting or a sill, lower still). A door drawn down to the skirting ends on that line.
 */
const SCREEN_CORE = 0.25;
const SCREEN_DARK = 0.45;
const SCREEN_EVEN = 0.22;
const SCREEN_BELOW_BAND = 0.15;
const SCREEN_BELOW = 0.8;
const SCREEN_REACH = 1;
/**
 * A round or oval thing hung on the wall (a mirror, a clock, a plate), however bright the daylight it reflects: its
 * new edges close a ring around the middle of their own bounds, reaching at least ROUND_REACH of the way out in every
 * one of ROUND_SECTORS directions, and leave the four corners of those bounds empty (nothing beyond ROUND_CORNER of
 * the way out both across and down, which an ellipse never reaches). The outline of a window, a door or an arch always
 * fills its corners: an arched window's top is round, but its sill is square. A round window (an oculus) would pass
 * as a mirror; rooms for sale rarely have one, while round mirrors and clocks are common staging decor.
 */
const ROUND_SECTORS = 16;
const ROUND_REACH = 0.7;
const ROUND_CORNER = 0.76;
/**
 * An outline the picture's left or right edge cuts (cutRound): at least CUT_ROUND_DRAWN of its rows hold some of it
 * (it is closed on the side that shows); at most CUT_ROUND_FLAT of them reach CUT_ROUND_FAR of its farthest reach from
 * the cut (an ellipse's side is that far only around its middle: a third to two fifths of its rows, while a frame's
 * side runs the whole height); its end rows (CUT_ROUND_END of its height at the top and at the bottom) reach on average
 * no farther than ROUND_CORNER of the farthest; and its middle rows (between CUT_ROUND_MIDDLE and 1 − CUT_ROUND_MIDDLE)
 * reach at least CUT_ROUND_BULGE of it.
 */
const CUT_ROUND_DRAWN = 0.7;
const CUT_ROUND_FAR = 0.95;
const CUT_ROUND_FLAT = 0.5;
const CUT_ROUND_END = 0.15;
const CUT_ROUND_MIDDLE = 0.3;
const CUT_ROUND_BULGE = 0.9;

/** Where the structure comparison found added edges, and the weight each pixel carries (0: furniture, unchecked). */
export interface AddedEdges {
  added: Uint8Array;
  weights: Float32Array;
}

/** A change's added edges counted per column and per row of its box, and how many columns and rows hold any. */
interface PaneCounts {
  perColumn: Uint16Array;
  perRow: Uint16Array;
  filledRows: number;
  filledColumns: number;
}

/**
 * Whether a structural change is no change of the building, judged from what both pictures show in its box and in a
 * ring around it: the same content under a new tone (a one-sided edge change, the grey levels still correlated, the
 * box as bright against its surroundings as the picture-wide tone `curve` (toneCurve) makes it, and not a long line
 * between two surfaces, which a repaint would sharpen or soften; or, whatever its shape, content all but the
 * photo's: SAME_CONTENT_CLOSE), or a picture, mirror or the like hung on what was plain wall (mostly added edges,
 * darker than the wall around it, at most HUNG_HEIGHT of the wall tall, its bottom clear of the floor line), or
 * something round hung there (ROUND_SECTORS), a television (SCREEN_*), something new in one piece that shows no
 * window's signs (SOLID_*), or a curtain (DRAPE_*, FOLD_*). An opening shows daylight, brighter than the wall, or is
 * as tall as a door.
 */
export function appraise(
  change: EdgeChange,
  before: Grey,
  after: Grey,
  edges: AddedEdges,
  curve: Float32Array,
  room?: RoomLines,
): boolean {
  const { tone, hung, shaped, solid, drape } = appraisal(change, before, after, edges, curve, room);
  return tone || hung || shaped || solid || drape;
}

/**
 * What appraise found the change to be: the same content under a new tone (`tone`), something small and dark hung on
 * the wall (`hung`), decor shown by its shape (`shaped`: a frame filled with new edges, a round outline, a screen),
 * something new in one piece that shows no window's signs (`solid`), a curtain (`drape`).
 */
function appraisal(
  change: EdgeChange,
  before: Grey,
  after: Grey,
  { added, weights }: AddedEdges,
  curve: Float32Array,
  room?: RoomLines,
): { tone: boolean; hung: boolean; shaped: boolean; solid: boolean; drape: boolean } {
  const { width, height } = before;
  const [bx, by, bw, bh] = change.box;
  const x0 = Math.max(0, bx);
  const y0 = Math.max(0, by);
  const x1 = Math.min(width, bx + bw);
  const y1 = Math.min(height, by + bh);
  const toned = (v: number) => Math.min(255, Math.max(0, curve[Math.min(255, Math.max(0, Math.round(v)))] as number));
  let n = 0;
  let st = 0;
  let sa = 0;
  let sb = 0;
  // Mean colours of the box before and after, and of the ring around it after; the box's added edges.
  const boxBefore = [0, 0, 0];
  const boxAfter = [0, 0, 0];
  const ringAfter = [0, 0, 0];
  let addedCount = 0;
  let addedVertical = 0;
  // Added edge pixels per column and per row of the box: how far the new thing fills it, and whether panes divide it.
  const perColumn = new Uint16Array(Math.max(0, x1 - x0));
  const perRow = new Uint16Array(Math.max(0, y1 - y0));
  for (let y = y0; y < y1; y++)
    for (let x = x0, i = y * width + x0; x < x1; x++, i++) {
      const a = before.data[i] as number;
      const b = after.data[i] as number;
      addColour(boxBefore, before, i);
      addColour(boxAfter, after, i);
      if (added[i] && (weights[i] as number) > 0 && x > 0 && y > 0 && x < width - 1 && y < height - 1) {
        addedCount++;
        perColumn[x - x0] = (perColumn[x - x0] as number) + 1;
        perRow[y - y0] = (perRow[y - y0] as number) + 1;
        const [gx, gy] = gradientAt(after.data, i, width);
        if (Math.abs(gx) > UPRIGHT * Math.abs(gy)) addedVertical++;
      }
      n++;
      st += toned(a);
      sa += a;
      sb += b;
    }
  const same = blockCorrelation(before, after, [x0, y0, x1, y1]);
  const pad = Math.max(4, Math.round(0.25 * Math.min(bw, bh)));
  let rn = 0;
  let rs = 0;
  let rsBefore = 0;
  let rsToned = 0;
  for (let y = Math.max(0, y0 - pad); y < Math.min(height, y1 + pad); y++)
    for (let x = Math.max(0, x0 - pad); x < Math.min(width, x1 + pad); x++) {
      if (x >= x0 && x < x1 && y >= y0 && y < y1) continue;
      rn++;
      addColour(ringAfter, after, y * width + x);
      rs += after.data[y * width + x] as number;
      rsBefore += before.data[y * width + x] as number;
      rsToned += toned(before.data[y * width + x] as number);
    }
  const bright = rn && rs > 0 ? sb / n / (rs / rn) : 1;
  const brightBefore = rn && rsBefore > 0 ? sa / n / (rsBefore / rn) : 1;
  // ...and as bright as the picture-wide tone curve makes it: a low-light edit lifts a dark wall many times over while
  // the window beside it clips, so the window's brightness against the wall drops without anything being built.
  const brightToned = rn && rsToned > 0 ? st / n / (rsToned / rn) : 1;
  const total = change.lost + change.added;
  const lostShare = total > 0 ? change.lost / total : 0;
  // The same content, only lighter, darker, sharper or softer (a tone change): nothing was built or removed.
  // A tone change only weakens or only strengthens edges; a line that shifted loses and gains them side by side.
  const oneSided = lostShare >= 1 - ONE_SIDED || lostShare <= ONE_SIDED;
  // A long thin change is the line between two surfaces, whose contrast changes when one of them is repainted.
  const line = Math.max(bw, bh) >= LINE_ASPECT * Math.min(bw, bh);
  const tone =
    ((oneSided && !line) || same >= SAME_CONTENT_CLOSE) &&
    same >= SAME_CONTENT &&
    Math.abs(bright / brightToned - 1) <= SAME_LIGHT;
  // Something new hung on the wall, darker than the wall around it and short of the floor: a picture, a mirror, a
  // curtain. An opening shows daylight (brighter than the wall) or, as a door, reaches the floor.
  // It hangs on what was plain wall (not where a bright window was) and its bottom stays clear of the floor line.
  const plainBefore = brightBefore >= PLAIN_MIN && brightBefore <= PLAIN_MAX;
  const hangs = room ? y1 <= room.ceiling + HUNG_BOTTOM * (room.floor - room.ceiling) : true;
  // Mostly new edges, on what was plain wall: every kind of decor below asks this, and all but a screen (which may look
  // taller than the back wall on a side wall near the camera) ask it to hang clear of the floor line.
  const newOnPlainWall = lostShare <= HUNG_LOST_SHARE && plainBefore;
  const onPlainWall = newOnPlainWall && hangs;
  // Pictures and mirrors are smaller than windows and doors.
  const modest = y1 - y0 <= HUNG_HEIGHT * (room ? room.floor - room.ceiling : height);
  const hung = onPlainWall && modest && bright < HUNG_BRIGHT;
  // Something hung at any size: a compact object filling its box with new edges, no daylight and no panes.
  const ringMean = rn ? rs / rn : 0;
  const w = x1 - x0;
  const h = y1 - y0;
  const filledRows = perRow.filter((count) => count > 0).length;
  const filledColumns = perColumn.filter((count) => count > 0).length;
  const daylight = daylightShare(after, [x0, y0, x1, y1], ringMean);
  const sizable = w >= FRAMED_MIN && h >= FRAMED_MIN;
  const compact = sizable && Math.max(w, h) <= FRAMED_ASPECT * Math.min(w, h);
  // Whether a sky's band shows at its top, looked for once and only where a rule below gets that far.
  let sky: boolean | undefined;
  const noSky = () => {
    sky ??= showsSky(after, [x0, y0, x1, y1], ringMean);
    return !sky;
  };
  // ...and whether it looks out of doors (foliage or sky inside it), likewise looked for once.
  let outdoors: boolean | undefined;
  const looksOut = () => {
    outdoors ??= looksOutdoors(after, [x0, y0, x1, y1], ringMean);
    return outdoors;
  };
  // Framed decor is measured against the wall it hangs on, which near the camera may be a side wall seen taller (the
  // small dark decor above keeps the back wall's measure: on a side wall a dim window then passes for it). Looked for
  // last, only for what is framed otherwise: it walks the box's columns in both pictures.
  // The photo's columns under the box, and the first line above it there (firstLine), found once for both uses below.
  const columns = { from: Math.max(1, x0), to: Math.min(width - 1, x1) };
  let lineAbove: number | undefined;
  const above = () => {
    lineAbove ??= firstLine(before, columns, y0 - 1, -1);
    return lineAbove;
  };
  let hungOn: Wall | undefined;
  const wallOf = () => {
    hungOn ??= room
      ? wallAt(before, after, [x0, y0, x1, y1], columns, above, room, daylight)
      : { top: 0, bottom: height };
    return hungOn;
  };
  const fitsWall = () => {
    const wall = wallOf();
    return (
      (!room || y1 <= wall.top + HUNG_BOTTOM * (wall.bottom - wall.top)) &&
      h <= FRAMED_HEIGHT * (wall.bottom - wall.top)
    );
  };
  const framed =
    newOnPlainWall &&
    compact &&
    addedCount >= FRAMED_DENSITY * n &&
    filledColumns >= FRAMED_SPAN * w &&
    filledRows >= FRAMED_SPAN * h &&
    ((daylight <= FRAMED_DAYLIGHT && bright <= FRAMED_BRIGHT) ||
      lightMat(after, [x0, y0, x1, y1], ringMean) ||
      litByRoom(before, after, [x0, y0, x1, y1], toned)) &&
    noSky() &&
    fitsWall();
  // Panes with some daylight between them are a window, however dark its view. Something only the wider rule
  // takes for decor (larger, or not darker than the wall) is also a window when a glazing bar divides it into panes
  // with foliage or sky between them (looksOutdoors): a casement's single upright bar over a pale view reads as a
  // pale picture, while a framed print's own lines draw such a bar too, over no view...
  const upright = dividedIntoPanes(perColumn, filledRows);
  const across = dividedIntoPanes(perRow, filledColumns);
  const divided = upright || across;
  const daylitPanes = daylight >= PANE_DAYLIGHT && divided;
  // ...and only what hangs below the ceiling line of the wall it hangs on: a thing that runs up to that line is the
  // building's, whatever it shows (a stone-clad column's courses and a stair's treads draw such lines too). Where no
  // ceiling is in view, or a white ceiling meets a pale wall, the back wall's ceiling line is found lower on the wall
  // and prints hung high cross it: what rises clearly above that line (CLEAR_ABOVE), with as much plain wall between
  // its top and the first line above it in the photo, hangs below the ceiling.
  const belowCeiling = () => !room || y0 >= wallOf().top || risesPastCeiling(y0, columns, above, room);
  // What no bar divides at its middle may still be a window whose bars stand nearer its sides (a casement beside
  // fixed panes), as bright as a view: a bar inside its frame with a view on both sides of it (viewBesideBar).
  const panes = { perColumn, perRow, filledRows, filledColumns };
  const print =
    framed &&
    (divided ? belowCeiling() && !looksOut() : bright < VIEW_SKY || !viewBesideBar(after, [x0, y0, x1, y1], panes));
  const round =
    onPlainWall && sizable && roundOutline(added, weights, [x0, y0, x1, y1], perColumn, perRow, width, height);
  const screen = newOnPlainWall && compact && !divided && darkScreen(after, [x0, y0, x1, y1], ringMean, before);
  const solid =
    plainBefore &&
    lostShare <= SOLID_LOST &&
    compact &&
    !divided &&
    w <= SOLID_WIDE * width &&
    h <= SOLID_TALL * w &&
    bright <= SOLID_BRIGHT &&
    addedCount >= SOLID_DENSITY * n &&
    (!room || y1 < room.floor - SOLID_FLOOR * (room.floor - room.ceiling)) &&
    daylight <= FRAMED_DAYLIGHT &&
    noSky() &&
    !looksOut();
  // A curtain: a tall panel of fabric hanging from near the ceiling line (DRAPE_*, FOLD_*). Where it covers part of a
  // window the window's edges are lost, which its own folds, added on the window's side, excuse.
  const fabric = chromaticity(boxAfter);
  const hangsFromTop =
    y1 - y0 >= DRAPE_TALL * (x1 - x0) &&
    (room ? y0 <= room.ceiling + DRAPE_TOP * (room.floor - room.ceiling) : y0 <= DRAPE_TOP * height);
  const ownColour =
    Math.min(hueApart(fabric, chromaticity(boxBefore)), hueApart(fabric, chromaticity(ringAfter))) >= DRAPE_HUE;
  const addedFolds =
    addedCount > 0 &&
    addedVertical >= DRAPE_VERTICAL * addedCount &&
    addedCount >= DRAPE_DENSITY * n &&
    change.added >= 0.5 * change.lost;
  const folds = hangsFromTop && hangingFolds(after, [x0, y0, x1, y1]);
  const byWindow =
    hangsFromTop &&
    daylightShare(before, [Math.max(0, 2 * x0 - x1), y0, Math.min(width, 2 * x1 - x0), y1], rn ? rsBefore / rn : 0) >=
      FOLD_WINDOW;
  // Its picture shows folds, in a colour or a shade of its own or by a window; or its added edges are folds in a
  // colour of its own, by a window. A column added (a concrete pillar, a built-in's side) draws upright edges in a
  // colour of its own too, but on a plain wall and without fabric's density.
  const ownShade = bright <= FOLD_DARK;
  // Fabric hung where the photo showed plain wall is lit by the room: a tall narrow window pasted near the ceiling
  // draws upright lines as densely, but shows daylight on more of it than framed decor may and is brighter than the
  // wall (SOLID_BRIGHT).
  const daylitPanel = plainBefore && daylight > FRAMED_DAYLIGHT && bright > SOLID_BRIGHT;
  const drape =
    !daylitPanel && ((folds && (ownColour || ownShade || byWindow)) || (addedFolds && ownColour && byWindow));
  // Small dark decor hung where no panes show daylight, and decor told by its shape (a frame filled with new edges, a
  // round outline, a screen).
  const hungDecor = hung && !daylitPanes;
  const byShape = print || round || screen;
  // Decor drawn in no straight line (FREE_FORM_*), looked for only where nothing above excused the change: it walks
  // the box's added edges in every direction.
  const freeForm =
    !(tone || hungDecor || byShape || solid || drape) &&
    newOnPlainWall &&
    compact &&
    w <= SOLID_WIDE * width &&
    (!room || y1 > room.ceiling) &&
    daylight <= FRAMED_DAYLIGHT &&
    !looksOut() &&
    seeThrough(before, after, [x0, y0, x1, y1], toned) >= SEE_THROUGH &&
    !straightRun(added, weights, [x0, y0, x1, y1], width);
  return { tone, hung: hungDecor, shaped: byShape || freeForm, solid, drape };
}

/**
 * Where the photo's columns under a thing run on as plain wall to a line lower than the back wall's floor line (by at
 * least SIDE_WALL_BELOW of the back wall), and the output still shows the photo's wall right under it (over that
 * share of the back wall, within WALL_BELOW_SAME grey levels on average: a door's dark leaf or a sofa's back there
 * goes on below the change's box), the thing hangs on a side wall nearer the camera, which the picture shows taller
 * than the back wall: a print hung there may be as tall as a window on the back wall.
 */
const SIDE_WALL_BELOW = 0.05;
const WALL_BELOW_SAME = 12;
/**
 * A side wall's ceiling line climbs toward the picture's edge at least this much a pixel, and the wall there is seen at
 * least NEAR_WALL_TALLER times as tall as the back wall (nearWall); nearer walls are measured as the back wall.
 */
const NEAR_WALL_SLOPE = 0.3;
const NEAR_WALL_TALLER = 1.25;
/** A line found this near the picture's top (share of its height) is its edge or a scan's border, not the ceiling's. */
const PICTURE_BORDER = 0.03;

/** The rows of the picture a thing's wall spans. */
interface Wall {
  top: number;
  bottom: number;
}

/**
 * The wall the box `[x0, y0, x1, y1)` hangs on (its columns `x`; `lineAbove`: the first line above it there), as
 * rows of the picture: the back wall's ceiling and floor lines, or on a side wall (SIDE_WALL_BELOW) the lines the
 * photo's columns meet first above and below the box (the median over its columns), its top no lower than the ceiling
 * line, or on a nearer side wall found by its ceiling line alone (nearWall) where it shows less daylight than
 * PANE_DAYLIGHT, whichever is the taller.
 */
function wallAt(
  before: Grey,
  after: Grey,
  [, y0, , y1]: [number, number, number, number],
  x: { from: number; to: number },
  lineAbove: () => number,
  room: RoomLines,
  daylight: number,
): Wall {
  const found = { top: room.ceiling, bottom: room.floor };
  if (x.to <= x.from) return found;
  const above = lineAbove();
  // What rises past the back wall's ceiling line as found, with plain wall above it (risesPastCeiling), hangs on a
  // wall whose top that line is not (a mantel shelf's edge, a soffit's, found where no ceiling is in view): the wall
  // runs up to the first line above the thing.
  const back = risesPastCeiling(y0, x, lineAbove, room)
    ? { top: Math.min(found.top, above), bottom: found.bottom }
    : found;
  // Measured against a nearer wall, decor may be as tall as a window on the back wall: only what shows less daylight
  // than panes with some daylight between them do (PANE_DAYLIGHT) is.
  const nearer = daylight < PANE_DAYLIGHT ? nearWall(before, x, y0, above, room) : back;
  const near = nearer.bottom - nearer.top > back.bottom - back.top ? nearer : back;
  const bottom = firstLine(before, x, y1, 1);
  const reach = SIDE_WALL_BELOW * (found.bottom - found.top);
  if (bottom <= back.bottom + reach) return near;
  const below = meanDifference(before, after, x, y1, Math.min(bottom, y1 + Math.max(2, Math.round(reach))));
  if (below > WALL_BELOW_SAME) return near;
  const side = { top: Math.min(above, back.top), bottom };
  return side.bottom - side.top >= near.bottom - near.top ? side : near;
}

/**
 * The wall a thing whose top is at row `y0` hangs on, over the columns `x`, from the first line above it in the
 * photo (row `above`): where that line lies above the back wall's ceiling line and climbs toward the picture's
 * nearer edge by at least NEAR_WALL_SLOPE (a side wall's ceiling line, receding), the thing hangs on a wall nearer the
 * camera, seen taller. In a level photo the horizon is a row, taken halfway down the back wall (a camera at about half
 * the room's height), and every wall's ceiling and floor lines lie as far above and below it as the wall is near: the
 * wall there runs from `above` to as far below the horizon. Otherwise, or where that wall is seen less than
 * NEAR_WALL_TALLER times as tall as the back wall, the back wall's lines.
 */
function nearWall(
  before: Grey,
  x: { from: number; to: number },
  y0: number,
  above: number,
  { ceiling, floor }: RoomLines,
): Wall {
  const back = { top: ceiling, bottom: floor };
  // firstLine stops at the picture's first row when it meets no line, and a scan's dark border draws one there.
  if (above >= ceiling || above <= PICTURE_BORDER * before.height) return back;
  const third = Math.max(1, Math.floor((x.to - x.from) / 3));
  const left = firstLine(before, { from: x.from, to: x.from + third }, y0 - 1, -1);
  const right = firstLine(before, { from: x.to - third, to: x.to }, y0 - 1, -1);
  const onLeft = x.from + x.to < before.width;
  const slope = (onLeft ? right - left : left - right) / Math.max(1, x.to - x.from - third);
  if (slope < NEAR_WALL_SLOPE) return back;
  const horizon = (ceiling + floor) / 2;
  if (horizon - above < NEAR_WALL_TALLER * (horizon - ceiling)) return back;
  return { top: above, bottom: 2 * horizon - above };
}

/** Mean difference of grey level between `before` and `after` over the columns `x` and the rows `[from, to)`. */
function meanDifference(before: Grey, after: Grey, x: { from: number; to: number }, from: number, to: number): number {
  let sum = 0;
  let n = 0;
  for (let y = Math.max(0, from); y < Math.min(before.height, to); y++)
    for (let column = x.from, i = y * before.width + x.from; column < x.to; column++, i++) {
      sum += Math.abs((after.data[i] as number) - (before.data[i] as number));
      n++;
    }
  return n ? sum / n : 0;
}

/**
 * The median over the columns `x` of the first row, from `from` on upward (`step` -1) or downward (1), where `image`
 * has an edge (EDGE_MIN); the picture's first or last row where a column has none.
 */
function firstLine({ data, width, height }: Grey, x: { from: number; to: number }, from: number, step: 1 | -1): number {
  const rows: number[] = [];
  for (let column = x.from; column < x.to; column++) {
    let y = Math.min(height - 2, Math.max(1, from));
    for (; y > 1 && y < height - 2; y += step) {
      const [gx, gy] = gradientAt(data, y * width + column, width);
      if (Math.abs(gx) + Math.abs(gy) >= EDGE_MIN) break;
    }
    rows.push(y);
  }
  rows.sort((a, b) => a - b);
  return rows[Math.floor(rows.length / 2)] as number;
}

/**
 * Whether something whose top is row `top` (over the columns `x`; `lineAbove`: the first line above it there) rises
 * past the back wall's ceiling line as found rather than running up to it: its top at least CLEAR_ABOVE of the wall
 * above that line, with as much plain wall between its top and the first line above it in the photo. A wall's new
 * corner, a column or a stair runs up to the line; a print hung high where the line was found lower on the wall, or
 * something nearer the camera seen higher in the picture, rises past it with the photo's plain wall above.
 */
function risesPastCeiling(
  top: number,
  x: { from: number; to: number },
  lineAbove: () => number,
  room: RoomLines,
): boolean {
  const clear = CLEAR_ABOVE * (room.floor - room.ceiling);
  return top <= room.ceiling - clear && x.to > x.from && top - lineAbove() >= clear;
}

/**
 * A door, a pillar or a tall cupboard stands on the floor and rises high on uprights that run most of its height: an
 * upright edge added or lost in one column (or the one beside it) down at least DOOR_UPRIGHT of the rows from its top
 * to the floor line, broken nowhere by more than DOOR_GAP rows. A sofa under a canvas, or a bed under a picture, has
 * uprights only as tall as each of them, with plain wall between.
 */
const DOOR_UPRIGHT = 0.6;
const DOOR_GAP = 2;

/**
 * Whether `piece`, a change standing on the floor and rising above furniture height (row `high`: furniture.ts), is
 * furniture with something hung on the wall above it: it rises on no door's uprights (DOOR_UPRIGHT), and either what
 * rises above furniture height lets in no daylight (bringsNoView), or for one of the cuts `above` offers (the pieces
 * of what rises above furniture height, each ending at that cut: furniture.ts, hungParts) every piece shows itself as
 * decor by its shape (a frame filled with new edges, a round outline, a screen: appraise), or is the photo's own line
 * under a new tone (a side wall's ceiling line the output draws fainter, grouped with the prints under it), and is no
 * window (glazed). Being only small and darker than the wall, which appraise takes for a picture where it floats
 * alone, is not enough here: a doorway's head is that too. `weights` is the mask (where furniture may not go).
 */
export function hungAboveFurniture(
  before: Grey,
  after: Grey,
  { lost, added, weights }: AddedEdges & { lost: Uint8Array },
  curve: Float32Array,
  room: RoomLines,
  piece: FurniturePiece,
  above: ReadonlyArray<ReadonlyArray<FurniturePiece>>,
  high: number,
): boolean {
  const { width, height } = before;
  const top = Math.max(1, piece.top);
  const bottom = Math.min(height - 1, piece.bottom, room.floor);
  if (bottom - top < FRAMED_MIN) return false;
  const left = Math.max(2, piece.left);
  const right = Math.min(width - 2, piece.right);
  // Where an upright edge was added or lost, in the piece's columns and one beside them on either side.
  const span = right - left + 2;
  const upright = filled(Uint8Array, span * (bottom - top));
  for (let y = top; y < bottom; y++)
    for (let x = left - 1; x <= right; x++) {
      const i = y * width + x;
      if (
        (added[i] === 1 && uprightStep(after.data, i, width)) ||
        (lost[i] === 1 && uprightStep(before.data, i, width))
      )
        upright[(y - top) * span + x - left + 1] = 1;
    }
  for (let x = left; x < right; x++) {
    let run = 0;
    let gap = 0;
    for (let y = top; y < bottom; y++) {
      const at = (y - top) * span + x - left;
      if (upright[at] || upright[at + 1] || upright[at + 2]) {
        run += gap + 1;
        gap = 0;
      } else if (run > 0 && ++gap > DOOR_GAP) {
        run = 0;
        gap = 0;
      }
      if (run >= DOOR_UPRIGHT * (bottom - top)) return false;
    }
  }
  if (bringsNoView(before, after, { lost, added, weights }, room, { top, bottom, left, right }, above, high))
    return true;
  // A piece seen above one cut is often seen above the next too: each is judged once.
  const judged = new Map<string, boolean>();
  const decor = (part: FurniturePiece) => {
    const key = `${part.left},${part.top},${part.right},${part.bottom}`;
    const known = judged.get(key);
    if (known !== undefined) return known;
    const sums = edgeSums({ lost, added, weights }, width, height, part);
    const change: EdgeChange = {
      kind: 'opening_added',
      box: [part.left, part.top, part.right - part.left, part.bottom - part.top],
      size: (sums.lost + sums.added) / height,
      lost: sums.lost / height,
      added: sums.added / height,
    };
    const seen = appraisal(change, before, after, { added, weights }, curve, room);
    const found =
      (seen.shaped || seen.tone) && !glazed(before, after, added, [part.left, part.top, part.right, part.bottom], room);
    judged.set(key, found);
    return found;
  };
  return above.some((parts) => parts.every(decor));
}

/**
 * Whether what rises above furniture height (row `high`) over `piece`, a change standing on the floor on no door's
 * uprights, lets in no daylight, so that it can be no window, however it joins the furniture under it (a gallery of
 * prints over a bed that no row cuts apart): it is mostly new (at most HUNG_LOST_SHARE of its edges lost: what was
 * taken away is judged as before), its top keeps NO_VIEW_CEILING of the wall clear of the ceiling line (a wall's new
 * corner or jog runs up to it) or rises clearly past it over plain wall (risesPastCeiling: a television or a lamp
 * nearer the camera), and above furniture height under NO_VIEW of it shows a view (showsView) where the
 * photo showed none. Where most of the photo there shows what a view would (a wall as pale and blue as a sky), a new
 * view cannot be told by its colour: then neither the part above furniture height nor any piece ending at one of the
 * cuts `above` offers (furniture.ts, hungParts) may show a sky's smooth band (showsSky).
 */
const NO_VIEW = 0.05;
const NO_VIEW_CEILING = 0.1;
/** The photo "shows what a view would" there when at least this share of it does. */
const VIEW_BLIND = 0.5;
/** A view's sky is at least this share of the wall's brightness (a blue cushion or rug is darker). */
const VIEW_SKY = 0.8;

function bringsNoView(
  before: Grey,
  after: Grey,
  edges: AddedEdges & { lost: Uint8Array },
  room: RoomLines,
  { top, bottom, left, right }: FurniturePiece,
  above: ReadonlyArray<ReadonlyArray<FurniturePiece>>,
  high: number,
): boolean {
  const { width, height } = before;
  const columns = { from: Math.max(1, left), to: Math.min(width - 1, right) };
  if (
    top < room.ceiling + NO_VIEW_CEILING * (room.floor - room.ceiling) &&
    !risesPastCeiling(top, columns, () => firstLine(before, columns, top - 1, -1), room)
  )
    return false;
  const sums = edgeSums(edges, width, height, { top, bottom, left, right });
  if (sums.lost > HUNG_LOST_SHARE * (sums.lost + sums.added)) return false;
  const box: [number, number, number, number] = [left, top, right, Math.max(top + FRAMED_MIN, Math.round(high))];
  const now = showsView(after, greyAround(after, box));
  const was = showsView(before, greyAround(before, box));
  let shown = 0;
  let showing = 0;
  for (let y = box[1]; y < box[3]; y++)
    for (let x = box[0], i = y * width + x; x < box[2]; x++, i++) {
      if (was(i)) shown++;
      else if (now(i)) showing++;
    }
  const area = (box[2] - box[0]) * (box[3] - box[1]);
  if (showing >= NO_VIEW * area) return false;
  if (shown < VIEW_BLIND * area) return true;
  const sky = (b: [number, number, number, number]) => showsSky(after, b, greyAround(after, b));
  return !sky(box) && !above.some((parts) => parts.some((p) => sky([p.left, p.top, p.right, p.bottom])));
}

/**
 * A window pasted low on a wall stands where furniture stands (furniture.ts), but shows what furniture does not: it
 * is a compact thing whose new edges fill its box (GLAZED_FILL of its pixels, GLAZED_SPAN of its rows and of its
 * columns: a frame and what is seen through it), divided into panes by a bar across its middle (MULLION_*), and
 * showing more daylight than hung decor may (FRAMED_DAYLIGHT) where the photo showed less than half as much, or a
 * view (GLAZED_VIEW). A sofa or a table is not divided edge to edge; a pale bookcase's shelves are, and its shelf
 * fronts read as daylight against a dim wall, but its books and the shadows between them keep it under that share.
 */
const GLAZED_FILL = 0.18;
const GLAZED_SPAN = 0.8;
/**
 * ...and at least GLAZED_TALL of the wall tall (between the lines found): a window seen from across the room still is;
 * a clock's face or a switch plate, bright and divided too, is smaller.
 */
const GLAZED_TALL = 0.25;
/**
 * On a pale wall (white, cream, lilac) the wall itself is near white and grey, so it reads as daylight and a window's
 * daylight cannot be told there. Its view can: panes whose inside (OUTDOOR_INSET in) shows foliage or sky (as
 * looksOutdoors counts them) on at least GLAZED_VIEW of it, where the photo showed less than half as much, are a
 * window too. Three framed botanical prints over a sofa show 5 % of either; real windows' views pasted low on such
 * walls 14–90 %.
 */
const GLAZED_VIEW = 0.12;

/**
 * Whether the box `[x0, y0, x1, y1)` (bottom and right exclusive) holds a new window rather than a piece of furniture
 * or decor: see GLAZED_FILL. `added` is where the output has edges the photo does not; `room` the photo's lines.
 * With the pictures swapped and the edges the output lost for `added`, whether the photo's window there was taken
 * away: furniture taken away from before a window leaves more of its view, not less.
 */
export function glazed(
  before: Grey,
  after: Grey,
  added: Uint8Array,
  [x0, y0, x1, y1]: [number, number, number, number],
  room: RoomLines,
): boolean {
  const { width, height } = before;
  const left = Math.max(0, x0);
  const top = Math.max(0, y0);
  const right = Math.min(width, x1);
  const bottom = Math.min(height, y1);
  if (right - left < FRAMED_MIN || bottom - top < Math.max(FRAMED_MIN, GLAZED_TALL * (room.floor - room.ceiling)))
    return false;
  const perColumn = new Uint16Array(right - left);
  const perRow = new Uint16Array(bottom - top);
  let count = 0;
  for (let y = top; y < bottom; y++)
    for (let x = left; x < right; x++) {
      if (!added[y * width + x]) continue;
      count++;
      perColumn[x - left] = (perColumn[x - left] as number) + 1;
      perRow[y - top] = (perRow[y - top] as number) + 1;
    }
  const filledRows = perRow.filter((n) => n > 0).length;
  const filledColumns = perColumn.filter((n) => n > 0).length;
  if (
    count < GLAZED_FILL * perColumn.length * perRow.length ||
    filledRows < GLAZED_SPAN * perRow.length ||
    filledColumns < GLAZED_SPAN * perColumn.length
  )
    return false;
  if (!dividedIntoPanes(perColumn, filledRows) && !dividedIntoPanes(perRow, filledColumns)) return false;
  const box: [number, number, number, number] = [left, top, right, bottom];
  const view = outdoorShares(after, box);
  if (view.either >= GLAZED_VIEW && outdoorShares(before, box).either < 0.5 * view.either) return true;
  const now = daylightShare(after, box, greyAround(after, box));
  return now > FRAMED_DAYLIGHT && daylightShare(before, box, greyAround(before, box)) < 0.5 * now;
}

/** Mean grey level of the ring around the box `[x0, y0, x1, y1)`, a quarter of its shorter side wide (at least 4). */
function greyAround({ data, width, height }: Grey, [x0, y0, x1, y1]: [number, number, number, number]): number {
  const pad = Math.max(4, Math.round(0.25 * Math.min(x1 - x0, y1 - y0)));
  let sum = 0;
  let n = 0;
  for (let y = Math.max(0, y0 - pad); y < Math.min(height, y1 + pad); y++)
    for (let x = Math.max(0, x0 - pad); x < Math.min(width, x1 + pad); x++) {
      if (x >= x0 && x < x1 && y >= y0 && y < y1) continue;
      sum += data[y * width + x] as number;
      n++;
    }
  return n ? sum / n : 0;
}

/** Whether the output's own edges in the box `[x0, y0, x1, y1)` are as dense and upright as fabric's folds (FOLD_*). */
function hangingFolds({ data, width, height }: Grey, [x0, y0, x1, y1]: [number, number, number, number]): boolean {
  let pixels = 0;
  let edges = 0;
  let upright = 0;
  for (let y = Math.max(1, y0); y < Math.min(height - 1, y1); y++)
    for (let x = Math.max(1, x0), i = y * width + x; x < Math.min(width - 1, x1); x++, i++) {
      pixels++;
      const [gx, gy] = gradientAt(data, i, width);
      if (Math.abs(gx) + Math.abs(gy) < FOLD_EDGE) continue;
      edges++;
      if (Math.abs(gx) > UPRIGHT * Math.abs(gy)) upright++;
    }
  return pixels > 0 && edges >= FOLD_DENSE * pixels && upright >= FOLD_VERTICAL * edges;
}

/** Whether some line of `counts` (added edge pixels per column, or per row) away from the margins spans the box. */
export function dividedIntoPanes(counts: Uint16Array, across: number): boolean {
  return barsAcross(counts, across, MULLION_MARGIN).length > 0;
}

/**
 * Where (indices into `counts`) lines that span the box lie, first to last, `margin` of its length or more in from
 * either end (dividedIntoPanes).
 */
function barsAcross(counts: Uint16Array, across: number, margin: number): number[] {
  const from = Math.ceil(margin * counts.length);
  const to = Math.floor((1 - margin) * counts.length);
  const bars: number[] = [];
  for (let k = Math.max(1, from); k < Math.min(counts.length - 1, to); k++) {
    // A line one pixel off straight still counts: the neighbour's pixels are taken with it, once.
    const line = Math.max(
      (counts[k] as number) + Math.max(counts[k - 1] as number, counts[k + 1] as number),
      counts[k] as number,
    );
    if (line >= MULLION_SPAN * across) bars.push(k);
  }
  return bars;
}

/**
 * Whether a bar crosses the box `[x0, y0, x1, y1)` of `image` inside its frame (OUTDOOR_INSET in; `perColumn` and
 * `perRow` are its added edges, `filledRows` and `filledColumns` the rows and columns holding any) with a view on
 * both sides of it: foliage or sky on at least GLAZED_VIEW of the frame's inside either side of the bar.
 */
function viewBesideBar(
  image: Grey,
  box: [number, number, number, number],
  { perColumn, perRow, filledRows, filledColumns }: PaneCounts,
): boolean {
  const [ix0, iy0, ix1, iy1] = insetBox(box, OUTDOOR_INSET);
  const view = (side: [number, number, number, number]) =>
    side[2] > side[0] && side[3] > side[1] && outdoorShares(image, side, 0).either >= GLAZED_VIEW;
  // The bar's own line and the neighbour taken with it belong to neither side.
  const upright = barsAcross(perColumn, filledRows, OUTDOOR_INSET).map((k) => box[0] + k);
  const level = barsAcross(perRow, filledColumns, OUTDOOR_INSET).map((k) => box[1] + k);
  return (
    upright.some((x) => view([ix0, iy0, x - 1, iy1]) && view([x + 2, iy0, ix1, iy1])) ||
    level.some((y) => view([ix0, iy0, ix1, y - 1]) && view([ix0, y + 2, ix1, iy1]))
  );
}

/**
 * Whether the added edges (of weight above 0) in the box `[x0, y0, x1, y1)` draw a closed round or oval outline: see
 * ROUND_SECTORS. Their bounds are the first and last columns and rows of the box that hold any (`perColumn`,
 * `perRow`, as appraise counted them). Positions are measured from the middle of those bounds, as shares of their half
 * width and half height, so that an ellipse that fills its bounds lies at distance 1.
 */
function roundOutline(
  added: Uint8Array,
  weights: Float32Array,
  [x0, y0, x1, y1]: [number, number, number, number],
  perColumn: Uint16Array,
  perRow: Uint16Array,
  width: number,
  height: number,
): boolean {
  // A thing the picture's edge cuts shows no whole outline: its cut side would pass for an empty corner. One cut at
  // the left or right edge alone is judged by the side that shows (cutRound).
  const cutLeft = x0 <= 0;
  const cutRight = x1 >= width;
  if (y0 <= 0 || y1 >= height || (cutLeft && cutRight)) return false;
  const top = y0 + perRow.findIndex((count) => count > 0);
  const bottom = y0 + perRow.findLastIndex((count) => count > 0);
  if (cutLeft || cutRight) return cutRound(added, weights, [x0, x1], [top, bottom], width, cutLeft);
  const left = x0 + perColumn.findIndex((count) => count > 0);
  const right = x0 + perColumn.findLastIndex((count) => count > 0);
  if (right <= left || bottom <= top) return false;
  const on = (x: number, y: number) => added[y * width + x] === 1 && (weights[y * width + x] as number) > 0;
  const midX = (left + right) / 2;
  const midY = (top + bottom) / 2;
  const halfW = Math.max(1, (right - left) / 2);
  const halfH = Math.max(1, (bottom - top) / 2);
  const reach = new Float32Array(ROUND_SECTORS);
  for (let y = top; y <= bottom; y++)
    for (let x = left; x <= right; x++) {
      if (!on(x, y)) continue;
      const u = (x - midX) / halfW;
      const v = (y - midY) / halfH;
      if (Math.abs(u) >= ROUND_CORNER && Math.abs(v) >= ROUND_CORNER) return false;
      const sector = Math.min(
        ROUND_SECTORS - 1,
        Math.floor(((Math.atan2(v, u) + Math.PI) / (2 * Math.PI)) * ROUND_SECTORS),
      );
      reach[sector] = Math.max(reach[sector] as number, Math.hypot(u, v));
    }
  return reach.every((distance) => distance >= ROUND_REACH);
}

/**
 * Whether the added edges between columns `[x0, x1)` and rows `top` to `bottom` (the first and last that hold any),
 * which the picture's left (`fromLeft`) or right edge cuts, draw the visible part of a round or oval outline: row by
 * row, how far from the cut edge the outline reaches bulges in the middle and falls away towards its top and bottom
 * (CUT_ROUND_*), the way an ellipse's side does whichever part of it shows. A window or a door cut by the edge reaches
 * as far at its top and its sill as in its middle, and an arched window's sill is square.
 */
function cutRound(
  added: Uint8Array,
  weights: Float32Array,
  [x0, x1]: [number, number],
  [top, bottom]: [number, number],
  width: number,
  fromLeft: boolean,
): boolean {
  const rows = bottom - top + 1;
  if (rows < FRAMED_MIN) return false;
  // Each row's reach: the distance from the cut edge of the farthest added edge in it (-1: none).
  const reach = new Int32Array(rows).fill(-1);
  for (let y = top; y <= bottom; y++)
    for (let x = x0; x < x1; x++) {
      const i = y * width + x;
      if (added[i] !== 1 || (weights[i] as number) <= 0) continue;
      const from = fromLeft ? x : width - 1 - x;
      reach[y - top] = Math.max(reach[y - top] as number, from);
    }
  const farthest = Math.max(...reach);
  if (farthest < FRAMED_MIN / 2) return false;
  const drawn = reach.filter((r) => r >= 0).length;
  if (drawn < CUT_ROUND_DRAWN * rows) return false;
  // A side that runs straight across many rows at the farthest reach is a frame, not an arc.
  if (reach.filter((r) => r >= CUT_ROUND_FAR * farthest).length > CUT_ROUND_FLAT * rows) return false;
  // Towards the top and the bottom the outline falls away from the farthest reach, on the whole.
  const end = Math.max(1, Math.round(CUT_ROUND_END * rows));
  const meanReach = (from: number, to: number) => {
    let sum = 0;
    for (let k = from; k < to; k++) sum += Math.max(0, reach[k] as number);
    return sum / (to - from);
  };
  if (Math.max(meanReach(0, end), meanReach(rows - end, rows)) > ROUND_CORNER * farthest) return false;
  // The widest rows lie in the middle.
  const from = Math.floor(CUT_ROUND_MIDDLE * rows);
  const to = Math.ceil((1 - CUT_ROUND_MIDDLE) * rows);
  let middle = 0;
  for (let k = from; k < to; k++) middle = Math.max(middle, reach[k] as number);
  return middle >= CUT_ROUND_BULGE * farthest;
}

/**
 * Whether the added edges (of weight above 0) in the box `[x0, y0, x1, y1)` hold a straight run in some direction
 * (every FREE_FORM_STEP degrees, a pixel's slack either side of the line) as long as FREE_FORM_LINE of the box's
 * longer side, or as the whole box is across in that direction.
 */
function straightRun(
  added: Uint8Array,
  weights: Float32Array,
  [x0, y0, x1, y1]: [number, number, number, number],
  width: number,
): boolean {
  // The box's added edges (`on`), and where one lies within a pixel each way (`near`): a sample whose pixel has none
  // near has none on it or on either side of the line either (each rounds at most a pixel away).
  const w = x1 - x0;
  const h = y1 - y0;
  const on = filled(Uint8Array, w * h);
  const near = filled(Uint8Array, w * h);
  for (let y = y0; y < y1; y++)
    for (let x = x0; x < x1; x++) {
      const i = y * width + x;
      if (added[i] !== 1 || (weights[i] as number) <= 0) continue;
      on[(y - y0) * w + (x - x0)] = 1;
      for (let ny = Math.max(0, y - y0 - 1); ny <= Math.min(h - 1, y - y0 + 1); ny++)
        for (let nx = Math.max(0, x - x0 - 1); nx <= Math.min(w - 1, x - x0 + 1); nx++) near[ny * w + nx] = 1;
    }
  const hit = (x: number, y: number) => {
    const px = Math.floor(x + 0.5) - x0;
    const py = Math.floor(y + 0.5) - y0;
    return px >= 0 && px < w && py >= 0 && py < h && on[py * w + px] === 1;
  };
  const cx = (x0 + x1) / 2;
  const cy = (y0 + y1) / 2;
  const half = Math.hypot(w, h) / 2;
  for (let degrees = 0; degrees < 180; degrees += FREE_FORM_STEP) {
    const dx = Math.cos((degrees * Math.PI) / 180);
    const dy = Math.sin((degrees * Math.PI) / 180);
    const across = Math.min(
      Math.abs(dx) > 1e-6 ? w / Math.abs(dx) : Number.POSITIVE_INFINITY,
      Math.abs(dy) > 1e-6 ? h / Math.abs(dy) : Number.POSITIVE_INFINITY,
    );
    const long = Math.min(across, FREE_FORM_LINE * Math.max(w, h));
    // Lines along (dx, dy) a pixel apart, offset along the normal (-dy, dx) from the box's middle, each walked where
    // it crosses the box, as long as a run that long may still start.
    for (let offset = -half; offset <= half; offset++) {
      const ox = cx - dy * offset;
      const oy = cy + dx * offset;
      const [from, to] = crossing(ox, oy, dx, dy, [x0, y0, x1, y1], half);
      for (let t = from, run = 0; t <= to && run + to - t + 1 >= long; t++) {
        const x = ox + dx * t;
        const y = oy + dy * t;
        const px = Math.floor(x + 0.5) - x0;
        const py = Math.floor(y + 0.5) - y0;
        // (A sample rounding just outside the box, where the walk's ends meet its sides, is looked at in full.)
        const close = px < 0 || px >= w || py < 0 || py >= h || near[py * w + px] === 1;
        run = close && (hit(x, y) || hit(x - dy, y + dx) || hit(x + dy, y - dx)) ? run + 1 : 0;
        if (run >= long) return true;
      }
    }
  }
  return false;
}

/**
 * The stretch `[from, to]` of `t`, within ±`half` and a whole number of pixels from -half, over which the point
 * `(ox, oy) + t (dx, dy)` rounds to a pixel of the box.
 */
function crossing(
  ox: number,
  oy: number,
  dx: number,
  dy: number,
  [x0, y0, x1, y1]: [number, number, number, number],
  half: number,
): [number, number] {
  let from = -half;
  let to = half;
  for (const [origin, step, low, high] of [
    [ox, dx, x0 - 0.5, x1 - 0.5],
    [oy, dy, y0 - 0.5, y1 - 0.5],
  ] as const) {
    if (Math.abs(step) < 1e-6) {
      if (origin < low || origin >= high) return [1, 0];
      continue;
    }
    const a = (low - origin) / step;
    const b = (high - origin) / step;
    from = Math.max(from, Math.min(a, b));
    to = Math.min(to, Math.max(a, b));
  }
  // On the steps of a whole pixel from -half.
  return [-half + Math.ceil(from + half), -half + Math.floor(to + half)];
}

/** Share of the box `[x0, y0, x1, y1)` where the output shows the photo as it was (SEE_SAME, under the tone curve). */
function seeThrough(
  before: Grey,
  after: Grey,
  [x0, y0, x1, y1]: [number, number, number, number],
  toned: (v: number) => number,
): number {
  let same = 0;
  for (let y = y0; y < y1; y++)
    for (let x = x0, i = y * before.width + x0; x < x1; x++, i++)
      if (Math.abs((after.data[i] as number) - toned(before.data[i] as number)) <= SEE_SAME) same++;
  return same / Math.max(1, (x1 - x0) * (y1 - y0));
}

/** Share of the box `[x0, y0, x1, y1)` in `image` showing daylight: much brighter than `wall` (or near white), nearly grey. */
function daylightShare(image: Grey, [x0, y0, x1, y1]: [number, number, number, number], wall: number): number {
  const lit = daylit(image, wall);
  let count = 0;
  for (let y = y0; y < y1; y++) for (let x = x0, i = y * image.width + x0; x < x1; x++, i++) if (lit(i)) count++;
  return count / Math.max(1, (x1 - x0) * (y1 - y0));
}

/**
 * Whether the box `[x0, y0, x1, y1)` of `image`, inside its frame, shows foliage or sky as a view does (OUTDOOR_*),
 * lit as a view is against a wall as bright as `wall` where that is given (SKY_LIT, LEAF_LIT).
 */
function looksOutdoors(image: Grey, box: [number, number, number, number], wall?: number): boolean {
  // A grey picture shows no colour to tell by: what is divided into panes stays a window.
  if (image.colour.channels < 3) return true;
  const { foliage, sky, inside } = outdoorShares(image, box, OUTDOOR_INSET, wall);
  return !inside || foliage >= OUTDOOR_GREEN || sky >= OUTDOOR_SKY;
}

/**
 * Shares of the box `[x0, y0, x1, y1)` of `image`, `inset` (OUTDOOR_INSET unless given) in from its sides (`inside`
 * pixels), that show foliage, sky, and either (OUTDOOR_*); all 0 for a grey picture. With `wall`, only what is lit as
 * a view is against a wall that bright counts (SKY_LIT, LEAF_LIT).
 */
function outdoorShares(
  image: Grey,
  [x0, y0, x1, y1]: [number, number, number, number],
  inset = OUTDOOR_INSET,
  wall = 0,
): { foliage: number; sky: number; either: number; inside: number } {
  const { data, channels } = image.colour;
  const [ix0, iy0, ix1, iy1] = insetBox([x0, y0, x1, y1], inset);
  let inside = 0;
  let foliage = 0;
  let sky = 0;
  let either = 0;
  if (channels >= 3)
    for (let y = iy0; y < iy1; y++)
      for (let x = ix0, j = (y * image.width + x) * channels; x < ix1; x++, j += channels) {
        const red = data[j] as number;
        const green = data[j + 1] as number;
        const blue = data[j + 2] as number;
        const level = image.data[y * image.width + x] as number;
        const leaf = green > red + FOLIAGE_GREEN && green >= blue && level >= LEAF_LIT * wall;
        const blueSky = blue > red + SKY_BLUE && level >= SKY_LIT * wall;
        inside++;
        if (leaf) foliage++;
        if (blueSky) sky++;
        if (leaf || blueSky) either++;
      }
  const share = (count: number) => (inside ? count / inside : 0);
  return { foliage: share(foliage), sky: share(sky), either: share(either), inside };
}

/**
 * Whether the box `[x0, y0, x1, y1)` of `image`, on a wall as bright as `wall`, shows a print in a light mat (MAT_*):
 * a band around its edge as bright as the wall at least, around a darker middle that shows no daylight.
 */
function lightMat(image: Grey, box: [number, number, number, number], wall: number): boolean {
  const whole = greyLevels(image, box);
  const inside = greyLevels(image, insetBox(box, MAT_BAND));
  const middle = insetBox(box, MAT_CORE);
  const core = greyLevels(image, middle);
  if (!whole || !inside || !core || whole.count <= inside.count) return false;
  const band = (whole.mean * whole.count - inside.mean * inside.count) / (whole.count - inside.count);
  return band >= wall && core.mean <= MAT_DARKER * band && daylightShare(image, middle, wall) <= FRAMED_DAYLIGHT;
}

/**
 * Whether the box `[x0, y0, x1, y1)` of `after` shows something lit by the room rather than daylight (ROOM_LIT_*):
 * its bright part no brighter than a share of the photo's brightest, in the output's tone (`toned`), and nothing
 * outdoors in it.
 */
function litByRoom(
  before: Grey,
  after: Grey,
  box: [number, number, number, number],
  toned: (v: number) => number,
): boolean {
  const inside = insetBox(box, OUTDOOR_INSET);
  if (inside[2] <= inside[0] || inside[3] <= inside[1]) return false;
  const brightest = toned(greyQuantile(before, [0, 0, before.width, before.height], 1 - PHOTO_TOP));
  return greyQuantile(after, inside, 1 - ROOM_LIT_TOP) <= ROOM_LIT * brightest && !looksOutdoors(after, box);
}

/** The grey level of `image` under which the share `q` of the box `[x0, y0, x1, y1)` lies (whole levels). */
function greyQuantile({ data, width }: Grey, [x0, y0, x1, y1]: [number, number, number, number], q: number): number {
  const counts = new Uint32Array(256);
  for (let y = y0; y < y1; y++)
    for (let x = x0, i = y * width + x0; x < x1; x++, i++) {
      const level = Math.min(255, Math.max(0, Math.round(data[i] as number)));
      counts[level] = (counts[level] as number) + 1;
    }
  return binOfRank(counts, Math.ceil(q * (x1 - x0) * (y1 - y0)) - 1);
}

/** Whether pixel `i` of `image`, on a wall as bright as `wall`, shows daylight: much brighter than it (or near white), nearly grey. */
function daylit(image: Grey, wall: number): (i: number) => boolean {
  const { data, channels } = image.colour;
  const g = channels >= 3 ? 1 : 0;
  const b = channels >= 3 ? 2 : 0;
  const bright = Math.min(DAYLIGHT_LEVEL, DAYLIGHT_GAIN * wall);
  return (i) => {
    if ((image.data[i] as number) < bright) return false;
    const j = i * channels;
    const high = Math.max(data[j] as number, data[j + g] as number, data[j + b] as number);
    const low = Math.min(data[j] as number, data[j + g] as number, data[j + b] as number);
    return high - low <= DAYLIGHT_GREY * high;
  };
}

/**
 * Whether pixel `i` of `image`, on a wall as bright as `wall`, could be part of a view: daylight, or sky (bluer than
 * red by SKY_BLUE, no less green than red, and at least VIEW_SKY of the wall's brightness).
 */
function showsView(image: Grey, wall: number): (i: number) => boolean {
  const lit = daylit(image, wall);
  const { data, channels } = image.colour;
  return (i) => {
    if (lit(i)) return true;
    if (channels < 3 || (image.data[i] as number) < VIEW_SKY * wall) return false;
    const j = i * channels;
    const red = data[j] as number;
    return (data[j + 2] as number) > red + SKY_BLUE && (data[j + 1] as number) >= red;
  };
}

/**
 * Share of the box `[x0, y0, x1, y1)` of `image`, on a wall as bright as `wall`, that could be part of a view: daylight,
 * sky (showsView) or foliage (greener than red by FOLIAGE_GREEN and no less green than blue).
 */
export function viewShare(image: Grey, [x0, y0, x1, y1]: [number, number, number, number], wall: number): number {
  const view = showsView(image, wall);
  const { data, channels } = image.colour;
  let count = 0;
  for (let y = y0; y < y1; y++)
    for (let x = x0, i = y * image.width + x0; x < x1; x++, i++) {
      const j = i * channels;
      const leaf =
        channels >= 3 &&
        (data[j + 1] as number) > (data[j] as number) + FOLIAGE_GREEN &&
        (data[j + 1] as number) >= (data[j + 2] as number);
      if (leaf || view(i)) count++;
    }
  return count / Math.max(1, (x1 - x0) * (y1 - y0));
}

/**
 * Whether the box `[x0, y0, x1, y1)` of `image` shows a screen hung on a wall as bright as `wall` (SCREEN_*): its
 * middle half dark and even, and the band below it (below where it ends, on the plain wall of `photo`) wall again.
 */
function darkScreen(
  image: Grey,
  [x0, y0, x1, y1]: [number, number, number, number],
  wall: number,
  photo: Grey,
): boolean {
  const { data, width, height } = image;
  const middle = insetBox([x0, y0, x1, y1], SCREEN_CORE);
  const [left, , right] = middle;
  const core = greyLevels(image, middle);
  if (!core || wall <= 0) return false;
  if (core.mean > SCREEN_DARK * wall || core.spread > SCREEN_EVEN * wall) return false;
  let end = y1;
  const reach = Math.min(height, y1 + Math.round(SCREEN_REACH * (y1 - y0)));
  while (end < reach && (greyLevels(image, [left, end, right, end + 1])?.mean ?? wall) <= SCREEN_DARK * wall) end++;
  const bandBottom = end + Math.max(2, Math.round(SCREEN_BELOW_BAND * (y1 - y0)));
  if (bandBottom > height) return false;
  if (end > y1 && bandBottom >= firstLine(photo, { from: left, to: right }, y1, 1)) return false;
  let below = 0;
  let count = 0;
  for (let y = end; y < bandBottom; y++)
    for (let x = left, i = y * width + x; x < right; x++, i++) {
      below += data[i] as number;
      count++;
    }
  return below >= SCREEN_BELOW * wall * count;
}

/** The weighted lost and added edge pixels in `box` (clipped to the picture): how much of a change lies there. */
function edgeSums(
  { lost, added, weights }: AddedEdges & { lost: Uint8Array },
  width: number,
  height: number,
  box: FurniturePiece,
): { lost: number; added: number } {
  let lostSum = 0;
  let addedSum = 0;
  for (let y = Math.max(0, box.top); y < Math.min(height, box.bottom); y++)
    for (let x = Math.max(0, box.left), i = y * width + x; x < Math.min(width, box.right); x++, i++) {
      const w = weights[i] as number;
      if (lost[i]) lostSum += w;
      if (added[i]) addedSum += w;
    }
  return { lost: lostSum, added: addedSum };
}

/** Whether `data` steps at pixel `i` (not on the border) across an upright edge at least EDGE_MIN strong. */
function uprightStep(data: Float32Array, i: number, width: number): boolean {
  const [gx, gy] = gradientAt(data, i, width);
  return Math.abs(gx) + Math.abs(gy) >= EDGE_MIN && Math.abs(gx) > UPRIGHT * Math.abs(gy);
}

/** Whether the box `[x0, y0, x1, y1)` of `image`, hung on a wall as bright as `wall`, shows sky (SKY_*). */
function showsSky(image: Grey, [x0, y0, x1, y1]: [number, number, number, number], wall: number): boolean {
  const { data: colour, channels } = image.colour;
  if (channels < 3 || wall <= 0) return false;
  const inset = Math.round(SKY_INSET * (x1 - x0));
  const band: [number, number, number, number] = [
    x0 + inset,
    y0 + Math.round(SKY_FROM * (y1 - y0)),
    x1 - inset,
    y0 + Math.round(SKY_TO * (y1 - y0)),
  ];
  const levels = greyLevels(image, band);
  if (!levels) return false;
  let blue = 0;
  for (let y = band[1]; y < band[3]; y++)
    for (let x = band[0], i = y * image.width + x; x < band[2]; x++, i++)
      if ((colour[i * channels + 2] as number) > (colour[i * channels] as number) + SKY_BLUE) blue++;
  return blue >= SKY_SHARE * levels.count && levels.spread <= SKY_EVEN * wall;
}

/** The box `[x0, y0, x1, y1)` with `share` of its width and of its height taken off each side (rounded). */
function insetBox([x0, y0, x1, y1]: [number, number, number, number], share: number): [number, number, number, number] {
  const dx = Math.round(share * (x1 - x0));
  const dy = Math.round(share * (y1 - y0));
  return [x0 + dx, y0 + dy, x1 - dx, y1 - dy];
}

/** The grey levels of `image` in the box `[x0, y0, x1, y1)`: how many, their mean and spread; null when it is empty. */
export function greyLevels(
  { data, width }: Grey,
  [x0, y0, x1, y1]: [number, number, number, number],
): { count: number; mean: number; spread: number } | null {
  let count = 0;
  let sum = 0;
  let squares = 0;
  for (let y = y0; y < y1; y++)
    for (let x = x0, i = y * width + x; x < x1; x++, i++) {
      const v = data[i] as number;
      count++;
      sum += v;
      squares += v * v;
    }
  if (!count) return null;
  const mean = sum / count;
  return { count, mean, spread: Math.sqrt(Math.max(0, squares / count - mean * mean)) };
}

/** Adds pixel `i`'s colour (red, green, blue) to `sum`. */
export function addColour(sum: number[], { colour }: Grey, i: number): void {
  const { data, channels } = colour;
  const j = i * channels;
  const g = channels >= 3 ? 1 : 0;
  const b = channels >= 3 ? 2 : 0;
  sum[0] = (sum[0] as number) + (data[j] as number);
  sum[1] = (sum[1] as number) + (data[j + g] as number);
  sum[2] = (sum[2] as number) + (data[j + b] as number);
}

/** A sum of colours (addColour) as its chromaticity: the shares of red, green and blue. */
export function chromaticity(sum: readonly number[]): number[] {
  const total = (sum[0] as number) + (sum[1] as number) + (sum[2] as number);
  return total > 0 ? sum.map((v) => v / total) : [1 / 3, 1 / 3, 1 / 3];
}

/** How far apart two chromaticities are (the distance between their shares). */
export function hueApart(p: readonly number[], q: readonly number[]): number {
  return Math.hypot(
    (p[0] as number) - (q[0] as number),
    (p[1] as number) - (q[1] as number),
    (p[2] as number) - (q[2] as number),
  );
}

/**
 * The grey-level correlation of the two pictures over the box `[x0, y0, x1, y1)`, taken on the means of 2 × 2 pixel
 * blocks: a strong shadow lift multiplies a dark photo's sensor grain along with its content, and pixel by pixel that
 * grain, which the photo barely showed, reads as content it did not have. Averaged over four pixels the grain falls
 * by half while a wall's edge or a window's frame, which spans several pixels, stays. 0 where either picture is
 * flat there (nothing to correlate).
 */
export function blockCorrelation(
  before: Grey,
  after: Grey,
  [x0, y0, x1, y1]: [number, number, number, number],
): number {
  const { width } = before;
  const sumOfBlock = (data: Float32Array, i: number) =>
    (data[i] as number) + (data[i + 1] as number) + (data[i + width] as number) + (data[i + width + 1] as number);
  let n = 0;
  let sa = 0;
  let sb = 0;
  let saa = 0;
  let sbb = 0;
  let sab = 0;
  for (let y = y0; y + 1 < y1; y += 2)
    for (let x = x0; x + 1 < x1; x += 2) {
      const a = sumOfBlock(before.data, y * width + x);
      const b = sumOfBlock(after.data, y * width + x);
      n++;
      sa += a;
      sb += b;
      saa += a * a;
      sbb += b * b;
      sab += a * b;
    }
  if (n < 2) return 0;
  const va = saa / n - (sa / n) ** 2;
  const vb = sbb / n - (sb / n) ** 2;
  // A block sum's variance is 16 times its mean's: flat below a spread of one grey level, as pixel by pixel before.
  return va > 16 && vb > 16 ? (sab / n - (sa / n) * (sb / n)) / Math.sqrt(va * vb) : 0;
}
