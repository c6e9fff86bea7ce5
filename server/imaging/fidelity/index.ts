/**
 * Fidelity: did the engine keep the room? Both pictures are decoded small (long edge WORK_EDGE, upright; JPEG
 * shrinks on load, so a 12-megapixel photo costs a reduced-size decode) and the output is registered to the photo
 * (../register.ts: engines reframe, crop and change the aspect ratio; one that cannot be placed is `unaligned`; one
 * refused on a homography fitted to features is registered again, refined on every pixel, and judged on that).
 * Then two comparisons:
 * - Structure: grey edges (Sobel, thinned to one-pixel lines, the output's contrast brought to the photo's) are
 *   compared where furniture may not go: input edges with no output edge nearby are lost structure (a window painted
 *   over), output edges with no input edge nearby are added structure (a new window, door or wall line). Both are
 *   measured as edge length in picture heights and turned into a 0–1 score.
 * - Surfaces: where the structure is the same, the colour of each small cell is compared after removing the one
 *   colour and tone change the whole picture agrees on (white balance, exposure, saturation, gamma); a large region
 *   whose colour moved anyway, bounded by the room's own lines rather than by a new outline (a rug, a sofa), and not
 *   only darkened beside a new piece of furniture (its shadow), is a repainted or re-surfaced wall, floor or ceiling.
 * Each change is reported with its kind and its box in the photo's pixels. Deterministic: the same bytes give the
 * same result.
 *
 * This file holds the whole check's flow; each step lives beside it: picture.ts (the working picture), edges.ts
 * (Sobel edges and how they match), room-lines.ts (the back wall's ceiling and floor lines, the default mask),
 * furniture.ts (what stands on the floor), structure.ts (edge changes grouped and named), appraise.ts (changes that
 * are no change of the building, and a new window told from furniture and decor), curtains.ts (curtains hung in
 * pairs), taken-away.ts (a person taken out of the picture, a round thing taken down), colour-model.ts and surfaces.ts
 * (recoloured walls, floors and ceilings), report.ts (the kinds of change and their boxes in the photo).
 */
import { asItIs, registerByLines, type Registration, refineRegistration, registerOutput } from '../register.js';
import { appraise, glazed, hungAboveFurniture } from './appraise.js';
import { curtainPairs } from './curtains.js';
import { contrastGain, type Edges, flattenedByTone, localContrastGain, sobel, toneCurve, unmatched } from './edges.js';
import { type FurniturePiece, withoutFurniture } from './furniture.js';
import { decodeSmall, type Grey, greyOf, uprightSize } from './picture.js';
import { corners, type FidelityChange, inPhoto } from './report.js';
import { defaultMask, type RoomLines, roomLines } from './room-lines.js';
import { type EdgeChange, structuralChanges } from './structure.js';
import { recolouredSurfaces } from './surfaces.js';
import { peopleTakenAway, roundThingsTakenAway } from './taken-away.js';
import { filled } from '../filled.js';

export { CHANGE_KINDS, type ChangeKind, type FidelityChange } from './report.js';

/** Below this score the picture no longer shows the same room. */
export const FIDELITY_MIN = 0.9;

/** A region of the picture (picture pixels, after EXIF orientation) where furniture may legitimately appear. */
export interface FidelityRegion {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface FidelityOptions {
  /**
   * Where the engine put furniture (a scene's pieces, in picture pixels): everything else must stay as it was.
   * Without it, the floor and the lower wall may change, and so may any object that stands on the floor and stays
   * below door height (or is as slender as a lamp); an empty list checks the whole picture.
   */
  allowed?: readonly FidelityRegion[];
  /** Never checked, with or without `allowed`: what is drawn over every output on purpose (the disclosure mark). */
  ignore?: readonly FidelityRegion[];
  /**
   * The output is drawn on the photo's own grid (an engine that only draws over the photo and never reframes it, like
   * the built-in one): it is compared pixel for pixel, not registered. Registration could only go wrong there: over
   * a furnished photo, the old and the new pieces match each other and can pull a homography off the room.
   */
  onPhotoGrid?: boolean;
}

/** Lost plus added edge length (in picture heights) at which the score reaches 0; FIDELITY_MIN sits at a tenth of it. */
const FULL_CHANGE = 3;
/** Scene boxes grow by this share of their size (at least ALLOWED_PAD_MIN work pixels) to take in drop shadows. */
const ALLOWED_PAD = 0.1;
const ALLOWED_PAD_MIN = 3;
/** Pixels this close to the edge of what a cropped output covers are not compared (Sobel's reach plus the match's). */
const COVER_MARGIN = 3;
/** At most this many changes are reported, the largest. */
const MAX_CHANGES = 12;
/** The score of a picture with a recoloured surface, less the surface's share of the picture. */
const RECOLOUR_SCORE = 0.85;
/** The highest score of a picture with a new window in it (appraise.ts, glazed). */
const GLAZED_SCORE = 0.85;

export interface FidelityResult {
  /** 1: the structure is intact; below FIDELITY_MIN: walls, windows, doors or the view changed. */
  score: number;
  /** The changes found, largest first (at most MAX_CHANGES); empty when the room is intact. */
  changes: FidelityChange[];
  /** Input edges missing from the output where furniture may not go, in picture heights of edge length. */
  lost: number;
  /** Output edges with no counterpart in the input there, same unit. */
  added: number;
  /** Share of the picture that was checked (weights of the furniture-free mask, 0–1). */
  checked: number;
}

/**
 * Scores `output` (an engine's picture of `input`, same size after EXIF orientation) for how much of the input's
 * structure it keeps. Rejects with sharp's error when either picture cannot be decoded at all.
 */
export async function scoreFidelity(
  input: Buffer,
  output: Buffer,
  options: FidelityOptions = {},
): Promise<FidelityResult> {
  const [before, decoded, size] = await Promise.all([decodeSmall(input), decodeSmall(output), uprightSize(input)]);
  const sameSize = decoded.width === before.width && decoded.height === before.height;
  const registered =
    options.onPhotoGrid && sameSize ? asItIs(decoded.colour) : await registerOutput(before.colour, decoded.colour);
  if (!registered)
    return {
      score: 0,
      changes: [{ kind: 'unaligned', box: [0, 0, size.width, size.height] }],
      lost: 0,
      added: 0,
      checked: 0,
    };
  const toPhoto = { x: size.width / before.width, y: size.height / before.height };
  const room = options.allowed ? undefined : roomLines(before);
  // The photo's edges are the same whichever placement of the output is judged: worked out once.
  const edgesBefore = sobel(before, 1);
  const judge = ({ image, valid }: Registration) => {
    // An output taken as it is was decoded in grey already.
    const after = image === decoded.colour ? decoded : greyOf(image);
    const covered = awayFromEdge(valid, before.width, before.height);
    const ignored = (mask: Float32Array) => {
      const cleared = options.ignore?.length
        ? clearRegions(mask, options.ignore, before.width, before.height, size)
        : mask;
      for (let i = 0; i < cleared.length; i++) if (!covered[i]) cleared[i] = 0;
      return cleared;
    };
    // Surfaces are compared everywhere but where a scene put furniture: the floor too (a floor recoloured is refused;
    // a rug is told apart by its outline). With a scene, that is also where edges are compared (compare only reads
    // its masks, so one serves both).
    const surfaces = ignored(maskFromRegions(options.allowed ?? [], before.width, before.height, size));
    if (!room) return compare(before, edgesBefore, after, surfaces, surfaces, toPhoto);
    return compare(before, edgesBefore, after, ignored(defaultMask(before, room)), surfaces, toPhoto, room);
  };
  const result = await judge(registered);
  if (result.score >= FIDELITY_MIN) return result;
  // Refused as it is: an output of the photo's size whose quarters lined up with the photo may still be zoomed by a
  // per cent or two, which puts the lines near the picture's sides a few pixels off; an empty room staged often has
  // too few features in common with its output to fit a homography. It is placed again by the room's own lines, and
  // judged on whichever placement scores it higher.
  if (!registered.warped && sameSize && !options.onPhotoGrid) {
    const byLines = await registerByLines(before.colour, decoded.colour);
    if (byLines) {
      const again = await judge(byLines);
      return again.score > result.score ? again : result;
    }
  }
  // Refused on a fitted homography: the features it was fitted to may have left it a few pixels off where they are
  // sparse, which reads as the room's lines moved. The registration refined on every pixel is judged instead.
  const refined = await refineRegistration(before.colour, registered);
  return refined ? await judge(refined) : result;
}

/** Whether the middle of the box `[x, y, width, height]` lies within `piece`. */
function centredIn([x, y, w, h]: readonly number[], piece: FurniturePiece): boolean {
  const cx = (x as number) + (w as number) / 2;
  const cy = (y as number) + (h as number) / 2;
  return cx >= piece.left && cx < piece.right && cy >= piece.top && cy < piece.bottom;
}

/**
 * Where the output covers the photo at least COVER_MARGIN pixels in from its edge: an edge of the photo right at the
 * edge of a crop has only the crop's last pixels to be matched against (replicated outward), so it reads as lost.
 * A square erosion, done as a minimum along rows and then along columns.
 */
function awayFromEdge(valid: Uint8Array, width: number, height: number): Uint8Array {
  if (allOnes(valid)) return valid;
  return erodeAlong(erodeAlong(valid, width, height, true), width, height, false);
}

/** Whether every pixel of `mask` is 1 (a plain loop: `every` calls a function per pixel, about 0.5 ms a picture). */
function allOnes(mask: Uint8Array): boolean {
  for (let i = 0; i < mask.length; i++) if (mask[i] !== 1) return false;
  return true;
}

/** 1 where `mask` is 1 at every pixel within COVER_MARGIN along the row (`alongRows`) or the column, else 0. */
function erodeAlong(mask: Uint8Array, width: number, height: number, alongRows: boolean): Uint8Array {
  const out = filled(Uint8Array, mask.length);
  const length = alongRows ? width : height;
  const step = alongRows ? 1 : width;
  for (let i = 0; i < mask.length; i++) {
    const at = alongRows ? i % width : Math.floor(i / width);
    let inside = 1;
    for (let k = Math.max(0, at - COVER_MARGIN); k <= Math.min(length - 1, at + COVER_MARGIN) && inside; k++)
      inside = mask[i + (k - at) * step] as number;
    out[i] = inside;
  }
  return out;
}

/** 1 where furniture may not go, 0 inside the (padded) regions where it may. */
function maskFromRegions(
  regions: readonly FidelityRegion[],
  width: number,
  height: number,
  size: { width: number; height: number },
): Float32Array {
  return clearRegions(filled(Float32Array, width * height, 1), regions, width, height, size);
}

/** Sets `mask` to 0 inside each region (picture pixels, padded as scene boxes are), in place. */
function clearRegions(
  mask: Float32Array,
  regions: readonly FidelityRegion[],
  width: number,
  height: number,
  size: { width: number; height: number },
): Float32Array {
  const sx = width / size.width;
  const sy = height / size.height;
  for (const region of regions) {
    const padX = Math.max(ALLOWED_PAD_MIN, ALLOWED_PAD * region.width * sx);
    const padY = Math.max(ALLOWED_PAD_MIN, ALLOWED_PAD * region.height * sy);
    const x0 = Math.max(0, Math.floor(region.x * sx - padX));
    const y0 = Math.max(0, Math.floor(region.y * sy - padY));
    const x1 = Math.min(width, Math.ceil((region.x + region.width) * sx + padX));
    const y1 = Math.min(height, Math.ceil((region.y + region.height) * sy + padY));
    for (let y = y0; y < y1; y++) mask.fill(0, y * width + x0, y * width + x1);
  }
  return mask;
}

async function compare(
  before: Grey,
  edgesBefore: Edges,
  after: Grey,
  mask: Float32Array,
  surfaceMask: Float32Array,
  toPhoto: { x: number; y: number },
  room?: RoomLines,
): Promise<FidelityResult> {
  const { width, height } = before;
  const gain = contrastGain(before, after, mask);
  const edgesAfter = sobel(after, gain);
  // Specks are dropped from the added edges only: an output's new grain is noise a sharpening raised, while a photo's
  // fine detail that is gone may be a line of the room painted over (dropping those missed doors and wall lines).
  // The picture-wide tone curve (each grey level of the photo to the output's), which both the lost edges and the
  // appraisal of each change follow.
  const curve = toneCurve(before.data, after.data, mask);
  const flattened = flattenedByTone(before, after, edgesBefore, gain, curve);
  const lost = unmatched(edgesBefore, edgesAfter.magnitude, width, height, after.data, false, flattened);
  // An output edge the photo draws more faintly, where a local tone operator lifted the whole neighbourhood's
  // contrast, is the photo's own (an HDR-like or low-light edit brings out a closet's louvres or a shadowed shelf).
  const localGain = localContrastGain(edgesBefore, edgesAfter, width, height);
  const added = unmatched(edgesAfter, edgesBefore.magnitude, width, height, before.data, true, undefined, localGain);
  const { weights, pieces, openings } = room
    ? withoutFurniture(
        mask,
        lost,
        added,
        width,
        height,
        room,
        // A window is told where it was added and, the pictures' roles swapped, where it was taken away.
        (piece) => {
          const box: [number, number, number, number] = [piece.left, piece.top, piece.right, piece.bottom];
          return glazed(before, after, added, box, room) || glazed(after, before, lost, box, room);
        },
        (piece, above, high) =>
          hungAboveFurniture(before, after, { lost, added, weights: mask }, curve, room, piece, above, high),
      )
    : { weights: mask, pieces: [], openings: [] };
  let lostSum = 0;
  let addedSum = 0;
  let checked = 0;
  for (let i = 0; i < mask.length; i++) {
    if (lost[i]) lostSum += weights[i] as number;
    if (added[i]) addedSum += weights[i] as number;
    checked += mask[i] as number;
  }
  const lostLength = lostSum / height;
  const addedLength = addedSum / height;
  const found = structuralChanges(lost, added, weights, width, height, room);
  // Each change is looked at in both pictures: the same content under a new tone, or an object hung or set in front
  // of the room, is no change of the building; its edges are taken out of the score.
  // Curtains hung in pairs either side of a window are told as a pair (curtains.ts).
  const curtains = room ? curtainPairs(found, before, after, { added, weights }, room) : new Set<EdgeChange>();
  let excused = 0;
  const structural: EdgeChange[] = [];
  for (const change of found) {
    if (curtains.has(change) || appraise(change, before, after, { added, weights }, curve, room))
      excused += change.size;
    else structural.push(change);
  }
  // A passer-by or a round thing (a paper lantern, a pendant's globe) the photo showed and the output no longer shows
  // is a declutter too (taken-away.ts).
  const people = await peopleTakenAway(before, after, structural);
  for (const thing of new Set([...people, ...roundThingsTakenAway(before, after, structural)])) {
    excused += thing.size;
    structural.splice(structural.indexOf(thing), 1);
  }
  let score = Math.min(1, Math.max(0, 1 - (lostLength + addedLength - excused) / FULL_CHANGE));
  // A new window, told by its panes and daylight, is a new opening however small it looks from the camera. So is what
  // lies on a piece standing where furniture stands that was recognised as a window there (withoutFurniture): its
  // edges weigh little or nothing, and what is left of it (often its top edge, read as a line) is named as it is.
  let newWindow = false;
  if (room)
    for (const change of structural) {
      if (change.added <= change.lost) continue;
      if (openings.some((piece) => centredIn(change.box, piece))) {
        change.kind = 'opening_added';
        newWindow = true;
      } else newWindow ||= glazed(before, after, added, corners(change.box), room);
    }
  // ...and so is one recognised there whose edges weigh nothing at all: below the floor line found (a window sill or
  // a low wall's top read as the floor) nothing is compared, and a window pasted there left no change to name. (One
  // that left a change the appraisal excused, a print over a mantel, is judged by that.)
  if (room)
    for (const piece of openings) {
      if (found.some((change) => centredIn(change.box, piece))) continue;
      const box = [piece.left, piece.top, piece.right - piece.left, piece.bottom - piece.top] as const;
      const kind = glazed(before, after, added, corners(box), room) ? 'opening_added' : 'opening_removed';
      structural.push({ kind, box: [...box], size: 0, lost: 0, added: 0 });
      newWindow = true;
    }
  if (newWindow) score = Math.min(score, GLAZED_SCORE);
  const surfaces = recolouredSurfaces(before, after, surfaceMask, lost, added, pieces);
  if (surfaces.length) {
    const share = surfaces.reduce((sum, box) => sum + box.area, 0) / (width * height);
    score = Math.min(score, Math.max(0, RECOLOUR_SCORE - share));
  }
  const changes = [...structural, ...surfaces]
    .sort((a, b) => b.size - a.size)
    .slice(0, MAX_CHANGES)
    .map(({ kind, box }) => ({ kind, box: inPhoto(box, toPhoto) }));
  return { score, changes, lost: lostLength, added: addedLength, checked: checked / mask.length };
}
