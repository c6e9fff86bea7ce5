/**
 * Curtains hung in pairs: a panel either side of a window and over its side, the two alike, with the window still
 * there between them. Each panel alone may read as a new opening or a wall line (a pale or patterned fabric on a pale
 * wall shows neither a colour of its own nor fabric's upright folds: appraise.ts, drape); the pair tells them apart.
 */
import {
  type AddedEdges,
  addColour,
  blockCorrelation,
  chromaticity,
  DRAPE_TALL,
  DRAPE_TOP,
  dividedIntoPanes,
  greyLevels,
  hueApart,
  viewShare,
} from './appraise.js';
import type { Grey } from './picture.js';
import { corners } from './report.js';
import type { RoomLines } from './room-lines.js';
import type { EdgeChange } from './structure.js';

/**
 * Changes in one column (their columns overlapping over PANEL_COLUMNS of the narrower's width), at most PANEL_GAP of
 * the wall apart, are one panel: a panel drawn over a window's frame is found in pieces, where it covers the frame and
 * where it covers the wall.
 */
const PANEL_COLUMNS = 0.5;
const PANEL_GAP = 0.1;
/**
 * A tall panel's twin is found beside it: hanging from the same height (their tops at most PAIR_TOP of the wall apart)
 * or sharing at least PAIR_ROWS of the shorter one's rows, and taken over the panel's rows (its lower part may hang in
 * front of furniture, whose edges are not compared, or be found as a piece apart). They are a pair when their widths
 * agree within PAIR_WIDTH times, they hang at least PAIR_APART of the wider one's width apart (a window between them,
 * not one panel's two sides) and at most PAIR_FAR of the picture's width, and their colours in the output agree:
 * chromaticity (r, g, b shares) within PAIR_HUE, mean brightness within PAIR_LEVEL times. The two panels of a pair are
 * of one fabric.
 */
const PAIR_TOP = 0.1;
const PAIR_ROWS = 0.5;
const PAIR_WIDTH = 2;
const PAIR_APART = 0.5;
const PAIR_FAR = 0.5;
const PAIR_HUE = 0.02;
const PAIR_LEVEL = 1.2;
/**
 * Between them the photo shows a window: at least BETWEEN_VIEW of it a view (daylight against the wall beside the
 * pair, sky or foliage: appraise.ts, viewShare; a window's frame, bars and blinds take the rest), which the output
 * keeps: as much view at least BETWEEN_KEPT as there was, its grey levels correlated with the photo's at least
 * BETWEEN_SAME. A window painted over loses its view; one pasted between new curtains shows a view where the photo had
 * none.
 */
const BETWEEN_VIEW = 0.1;
const BETWEEN_KEPT = 0.5;
const BETWEEN_SAME = 0.6;
/**
 * A panel opens nothing: at most PANEL_VIEW_GAIN more of it shows a view (daylight, sky or foliage) in the output than
 * in the photo. A strip of window added where there was wall shows one over most of it; a floral fabric's leaves read
 * as foliage over a tenth of it.
 */
const PANEL_VIEW_GAIN = 0.2;
/**
 * Curtains hang in front of the window, over its sides: the half of each panel that faces the window covered some of
 * its view in the photo, at least OVER_VIEW of that half (its glass, or its bright reveal). A pair of columns or
 * pilasters set up either side of a window stands beside its frame, on wall; as alike as a pair of curtains, they were
 * let through when this was not asked (the probes' two columns set up so beside the set's windows: refused 26 times of
 * 60 instead of 41).
 */
const OVER_VIEW = 0.05;
/**
 * A pair of curtains brings fabric in front of the wall: the new edges of its panels are at least PAIR_ADDED of those
 * they lost (the part of a window's frame they cover). Things taken away either side of a bed (two lamps on their
 * nightstands) lose their outlines and add next to nothing.
 */
const PAIR_ADDED = 0.25;

type Corners = [number, number, number, number];

/** A panel: its bounds `[x0, y0, x1, y1)` and the changes it is made of. */
interface Panel {
  box: Corners;
  changes: EdgeChange[];
}

/**
 * The changes among `changes` that are one of a pair of curtains hung either side of a window (see above). A panel is
 * as tall and hangs from as high as a single curtain told by its folds does (appraise.ts, DRAPE_TALL and DRAPE_TOP),
 * and no line of its new edges crosses it (appraise.ts, dividedIntoPanes): a bookcase's shelves or a window's
 * transoms do.
 */
export function curtainPairs(
  changes: readonly EdgeChange[],
  before: Grey,
  after: Grey,
  edges: AddedEdges,
  room: RoomLines,
): Set<EdgeChange> {
  const wall = room.floor - room.ceiling;
  const hanging = panelsOf(changes, wall).filter(({ box }) => box[1] <= room.ceiling + DRAPE_TOP * wall);
  const paired = new Set<EdgeChange>();
  for (const panel of hanging) {
    const [x0, y0, x1, y1] = panel.box;
    if (y1 - y0 < DRAPE_TALL * (x1 - x0) || crossed(edges, panel.box, before.width)) continue;
    for (const twin of hanging) {
      const shared = Math.min(twin.box[3], y1) - Math.max(twin.box[1], y0);
      const alike =
        Math.abs(twin.box[1] - y0) <= PAIR_TOP * wall ||
        shared >= PAIR_ROWS * Math.min(twin.box[3] - twin.box[1], y1 - y0);
      if (twin === panel || !alike) continue;
      const along: Corners = [twin.box[0], y0, twin.box[2], y1];
      if (crossed(edges, along, before.width)) continue;
      const both = [...panel.changes, ...twin.changes];
      const lost = both.reduce((sum, change) => sum + change.lost, 0);
      const added = both.reduce((sum, change) => sum + change.added, 0);
      if (added < PAIR_ADDED * lost) continue;
      if (!(x0 < along[0] ? pair(panel.box, along, before, after) : pair(along, panel.box, before, after))) continue;
      for (const change of both) paired.add(change);
    }
  }
  return paired;
}

/** Whether a line of the added edges in the box crosses it from side to side, away from its top and bottom. */
function crossed({ added, weights }: AddedEdges, [x0, y0, x1, y1]: Corners, width: number): boolean {
  const perRow = new Uint16Array(y1 - y0);
  const columns = new Uint8Array(x1 - x0);
  for (let y = y0; y < y1; y++)
    for (let x = x0, i = y * width + x0; x < x1; x++, i++)
      if (added[i] && (weights[i] as number) > 0) {
        perRow[y - y0] = (perRow[y - y0] as number) + 1;
        columns[x - x0] = 1;
      }
  return dividedIntoPanes(
    perRow,
    columns.reduce((sum, v) => sum + v, 0),
  );
}

/** The changes grouped into panels: those in one column with little between them (PANEL_*). */
function panelsOf(changes: readonly EdgeChange[], wall: number): Panel[] {
  const panels: Panel[] = changes.map((change) => ({ box: corners(change.box), changes: [change] }));
  for (let merged = true; merged; ) {
    merged = false;
    for (let a = 0; a < panels.length && !merged; a++)
      for (let b = a + 1; b < panels.length && !merged; b++) {
        const p = panels[a] as Panel;
        const q = panels[b] as Panel;
        const overlap = Math.min(p.box[2], q.box[2]) - Math.max(p.box[0], q.box[0]);
        const narrower = Math.min(p.box[2] - p.box[0], q.box[2] - q.box[0]);
        const gap = Math.max(p.box[1], q.box[1]) - Math.min(p.box[3], q.box[3]);
        if (overlap < PANEL_COLUMNS * narrower || gap > PANEL_GAP * wall) continue;
        p.box = [
          Math.min(p.box[0], q.box[0]),
          Math.min(p.box[1], q.box[1]),
          Math.max(p.box[2], q.box[2]),
          Math.max(p.box[3], q.box[3]),
        ];
        p.changes.push(...q.changes);
        panels.splice(b, 1);
        merged = true;
      }
  }
  return panels;
}

/** Whether `left` and `right` are a pair of curtains either side of a window the output keeps. */
function pair(left: Corners, right: Corners, before: Grey, after: Grey): boolean {
  const [lx0, ly0, lx1, ly1] = left;
  const [rx0, ry0, rx1, ry1] = right;
  const lw = lx1 - lx0;
  const rw = rx1 - rx0;
  const apart = rx0 - lx1;
  if (apart < PAIR_APART * Math.max(lw, rw) || apart > PAIR_FAR * before.width) return false;
  if (Math.max(lw, rw) > PAIR_WIDTH * Math.min(lw, rw)) return false;
  const top = Math.max(ly0, ry0);
  const bottom = Math.min(ly1, ry1);
  const [leftHue, leftLevel] = colourOf(after, left);
  const [rightHue, rightLevel] = colourOf(after, right);
  if (hueApart(leftHue, rightHue) > PAIR_HUE) return false;
  if (Math.max(leftLevel, rightLevel) > PAIR_LEVEL * Math.min(leftLevel, rightLevel)) return false;
  const wall = wallBeside(before, lx0, rx1, top, bottom);
  const between: Corners = [lx1, top, rx0, bottom];
  const view = viewShare(before, between, wall);
  if (view < BETWEEN_VIEW || viewShare(after, between, wall) < BETWEEN_KEPT * view) return false;
  if (blockCorrelation(before, after, between) < BETWEEN_SAME) return false;
  // Each hangs over the window's side (OVER_VIEW).
  const facing = (box: Corners, toRight: boolean): Corners => {
    const middle = Math.round((box[0] + box[2]) / 2);
    return toRight ? [middle, box[1], box[2], box[3]] : [box[0], box[1], middle, box[3]];
  };
  if (
    viewShare(before, facing(left, true), wall) < OVER_VIEW ||
    viewShare(before, facing(right, false), wall) < OVER_VIEW
  )
    return false;
  return [left, right].every((box) => viewShare(after, box, wall) <= viewShare(before, box, wall) + PANEL_VIEW_GAIN);
}

/** The mean chromaticity (r, g, b shares) and grey level of `image` in the box. */
function colourOf(image: Grey, [x0, y0, x1, y1]: Corners): [number[], number] {
  const sum = [0, 0, 0];
  let grey = 0;
  for (let y = y0; y < y1; y++)
    for (let x = x0, i = y * image.width + x0; x < x1; x++, i++) {
      addColour(sum, image, i);
      grey += image.data[i] as number;
    }
  return [chromaticity(sum), grey / Math.max(1, (x1 - x0) * (y1 - y0))];
}

/**
 * The photo's mean grey level over the rows `[top, bottom)` outside the columns `[from, to)`: the wall beside a pair
 * (the pair's own columns where the pair spans the picture).
 */
function wallBeside(image: Grey, from: number, to: number, top: number, bottom: number): number {
  const band = greyLevels(image, [0, top, image.width, bottom]);
  const pair = greyLevels(image, [from, top, to, bottom]);
  if (!band || !pair) return band?.mean ?? 0;
  if (band.count === pair.count) return pair.mean;
  return (band.mean * band.count - pair.mean * pair.count) / (band.count - pair.count);
}
