/**
 * Generated rooms and fake engines for the fidelity check (bench/fidelity.ts and its unit test). A room is a
 * one-point-perspective box drawn as SVG (back wall, side walls, ceiling, floor, windows with a view, doors), with
 * random proportions, colours, lighting, sensor noise and JPEG quality. Each fake engine stages it: some only add
 * furniture (which must pass), the others also change the building (which must be caught). Seeded: the same seed
 * gives the same bytes.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import sharp from 'sharp';
import type { RoomType, Style } from '../server/imaging/catalog-data.js';
import { ROOM_TYPES, STYLES } from '../server/imaging/catalog-data.js';
import { FIDELITY_MIN, type FidelityRegion, scoreFidelity } from '../server/imaging/fidelity.js';
import { createImageEngine } from '../server/imaging/sharp-engine.js';
import { gradeMatrix, STYLE_LOOKS } from '../server/imaging/styles.js';

export type Random = () => number;

/** mulberry32: small, fast and good enough for test scenes. */
export function random(seed: number): Random {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const between = (rnd: Random, min: number, max: number) => min + (max - min) * rnd();
const pick = <T>(rnd: Random, items: readonly T[]): T => items[Math.floor(rnd() * items.length)]!;

interface Opening {
  x: number;
  y: number;
  width: number;
  height: number;
}

interface Window extends Opening {
  frame: string;
  mullions: number;
  sky: [string, string];
  trees: Array<{ cx: number; cy: number; r: number; colour: string }>;
  buildings: Array<{ x: number; width: number; height: number; colour: string }>;
}

interface Door extends Opening {
  leaf: string;
  casing: string;
  panels: number;
}

export interface Room {
  width: number;
  height: number;
  /** Back wall: x from left to right, y from ceiling (top) to floor (bottom). */
  left: number;
  right: number;
  top: number;
  bottom: number;
  vanish: { x: number; y: number };
  wall: [number, number, number];
  sideShade: [number, number];
  ceiling: string;
  floor: { colour: string; line: string; kind: 'planks' | 'tiles' | 'carpet' };
  skirting: string;
  windows: Window[];
  doors: Door[];
  /** Extra vertical wall lines on the back wall (a corner where the wall steps back): x and shade. */
  wallLines: Array<{ x: number; shade: number }>;
  light: { x: number; y: number; strength: number };
  noise: number;
  quality: number;
}

export const SIZES: ReadonlyArray<[number, number]> = [
  [1024, 768],
  [1200, 800],
  [1600, 900],
  [2048, 1536],
  [1536, 2048],
  [3000, 2000],
  [4000, 3000],
];

const hsl = (h: number, s: number, l: number) => `hsl(${h.toFixed(0)},${s.toFixed(0)}%,${l.toFixed(0)}%)`;

/** A random empty room of the given size. */
export function randomRoom(rnd: Random, width: number, height: number): Room {
  const backWidth = between(rnd, 0.42, 0.75) * width;
  const left = between(rnd, 0.08, 0.92) * (width - backWidth);
  const top = between(rnd, 0.06, 0.22) * height;
  const bottom = between(rnd, 0.55, 0.72) * height;
  const room: Room = {
    width,
    height,
    left,
    right: left + backWidth,
    top,
    bottom,
    // Eye level: a camera 1.05–1.55 m high in a 2.6 m room.
    vanish: { x: left + between(rnd, 0.3, 0.7) * backWidth, y: top + between(rnd, 0.4, 0.6) * (bottom - top) },
    wall: [between(rnd, 0, 360), between(rnd, 5, 35), between(rnd, 62, 90)],
    sideShade: [between(rnd, -14, -5), between(rnd, -12, 6)],
    ceiling: hsl(between(rnd, 30, 60), between(rnd, 0, 15), between(rnd, 88, 97)),
    floor: randomFloor(rnd),
    skirting: hsl(between(rnd, 20, 50), between(rnd, 0, 20), between(rnd, 80, 98)),
    windows: [],
    doors: [],
    wallLines: [],
    light: { x: between(rnd, 0.2, 0.8) * width, y: between(rnd, 0.3, 0.8) * height, strength: between(rnd, 0, 0.4) },
    noise: between(rnd, 2, 9),
    quality: Math.round(between(rnd, 80, 95)),
  };
  const windows = rnd() < 0.3 ? 2 : 1;
  for (let i = 0; i < windows; i++) addWindow(rnd, room);
  if (rnd() < 0.6) addDoor(rnd, room);
  return room;
}

function randomFloor(rnd: Random): Room['floor'] {
  const kind = pick(rnd, ['planks', 'tiles', 'carpet'] as const);
  if (kind === 'carpet') {
    const h = between(rnd, 0, 360);
    return { kind, colour: hsl(h, between(rnd, 5, 30), between(rnd, 35, 70)), line: hsl(h, 10, 30) };
  }
  if (kind === 'tiles')
    return { kind, colour: hsl(between(rnd, 0, 60), between(rnd, 0, 20), between(rnd, 55, 85)), line: '#5a5550' };
  return { kind, colour: hsl(between(rnd, 20, 38), between(rnd, 30, 55), between(rnd, 28, 62)), line: '#3b2a1c' };
}

const wallHeight = (room: Room) => room.bottom - room.top;

/** Openings keep a gap from each other and from the back wall's corners. */
function fits(room: Room, box: Opening, ignore?: Opening): boolean {
  const gap = 0.02 * room.width;
  if (box.x < room.left + gap || box.x + box.width > room.right - gap) return false;
  const others = [...room.windows, ...room.doors].filter((other) => other !== ignore);
  if (others.some((o) => box.x < o.x + o.width + gap && o.x < box.x + box.width + gap)) return false;
  return room.wallLines.every((line) => line.x < box.x - gap || line.x > box.x + box.width + gap);
}

function placeOpening(rnd: Random, room: Room, width: number, ignore?: Opening): number | null {
  for (let attempt = 0; attempt < 40; attempt++) {
    const x = between(rnd, room.left, room.right - width);
    if (fits(room, { x, y: 0, width, height: 1 }, ignore)) return x;
  }
  return null;
}

export function addWindow(rnd: Random, room: Room): boolean {
  const h = wallHeight(room);
  const height = between(rnd, 0.35, 0.58) * h;
  const width = Math.min(between(rnd, 0.5, 1.3) * height, 0.4 * (room.right - room.left));
  const x = placeOpening(rnd, room, width);
  if (x === null) return false;
  const sky: [string, string] = [
    hsl(between(rnd, 195, 220), between(rnd, 30, 70), between(rnd, 55, 75)),
    hsl(between(rnd, 190, 220), between(rnd, 10, 40), between(rnd, 80, 94)),
  ];
  const trees = Array.from({ length: Math.floor(between(rnd, 0, 5)) }, () => ({
    cx: rnd(),
    cy: between(rnd, 0.55, 0.9),
    r: between(rnd, 0.1, 0.3),
    colour: hsl(between(rnd, 80, 140), between(rnd, 20, 50), between(rnd, 25, 50)),
  }));
  const buildings = Array.from({ length: Math.floor(between(rnd, 0, 4)) }, () => ({
    x: rnd(),
    width: between(rnd, 0.15, 0.4),
    height: between(rnd, 0.15, 0.5),
    colour: hsl(between(rnd, 0, 60), between(rnd, 0, 25), between(rnd, 45, 80)),
  }));
  room.windows.push({
    x,
    y: room.top + between(rnd, 0.1, 0.3) * h,
    width,
    height,
    frame: rnd() < 0.7 ? hsl(40, 10, between(rnd, 88, 99)) : hsl(between(rnd, 0, 40), 20, between(rnd, 12, 35)),
    mullions: Math.floor(between(rnd, 0, 3)),
    sky,
    trees,
    buildings,
  });
  return true;
}

export function addDoor(rnd: Random, room: Room): boolean {
  const height = between(rnd, 0.72, 0.84) * wallHeight(room);
  const width = between(rnd, 0.33, 0.45) * height;
  const x = placeOpening(rnd, room, width);
  if (x === null) return false;
  room.doors.push({
    x,
    y: room.bottom - height,
    width,
    height,
    leaf:
      rnd() < 0.5
        ? hsl(40, 8, between(rnd, 85, 97))
        : hsl(between(rnd, 20, 35), between(rnd, 25, 50), between(rnd, 25, 55)),
    casing: hsl(40, 10, between(rnd, 80, 98)),
    panels: Math.floor(between(rnd, 0, 4)),
  });
  return true;
}

/** A new corner on the back wall: the wall to its right steps back and is lit differently. */
export function addWallLine(rnd: Random, room: Room): boolean {
  for (let attempt = 0; attempt < 40; attempt++) {
    const x = between(rnd, room.left + 0.1 * (room.right - room.left), room.right - 0.1 * (room.right - room.left));
    const gap = 0.03 * room.width;
    if ([...room.windows, ...room.doors].some((o) => x > o.x - gap && x < o.x + o.width + gap)) continue;
    room.wallLines.push({ x, shade: (rnd() < 0.5 ? -1 : 1) * between(rnd, 6, 14) });
    return true;
  }
  return false;
}

/** Moves one of the back wall's corners sideways by 6–15 % of the picture width, keeping every opening on the wall. */
export function moveWallLine(rnd: Random, room: Room): boolean {
  const shift = between(rnd, 0.06, 0.15) * room.width;
  const openings = [...room.windows, ...room.doors];
  const leftmost = Math.min(room.right, ...openings.map((o) => o.x)) - 0.02 * room.width;
  const rightmost = Math.max(room.left, ...openings.map((o) => o.x + o.width)) + 0.02 * room.width;
  // Each candidate: which corner, the new x, and whether the wall keeps every opening.
  const moves: Array<['left' | 'right', number, boolean]> = [
    ['left', room.left - shift, room.left - shift > 0.02 * room.width],
    ['left', room.left + shift, room.left + shift < leftmost],
    ['right', room.right + shift, room.right + shift < 0.98 * room.width],
    ['right', room.right - shift, room.right - shift > rightmost],
  ];
  const start = Math.floor(rnd() * moves.length);
  for (let k = 0; k < moves.length; k++) {
    const [corner, x, keeps] = moves[(start + k) % moves.length]!;
    if (!keeps) continue;
    room[corner] = x;
    return true;
  }
  return false;
}

/** Moves an opening along the wall by at least 60 % of its width (and at least 6 % of the picture). */
export function moveOpening(rnd: Random, room: Room, openings: Opening[]): boolean {
  const opening = openings.length ? pick(rnd, openings) : undefined;
  if (!opening) return false;
  const least = Math.max(0.6 * opening.width, 0.06 * room.width);
  for (let attempt = 0; attempt < 60; attempt++) {
    const x = between(rnd, room.left, room.right - opening.width);
    if (Math.abs(x - opening.x) < least) continue;
    if (fits(room, { ...opening, x }, opening)) {
      opening.x = x;
      return true;
    }
  }
  return false;
}

export function removeOne<T>(rnd: Random, items: T[]): boolean {
  if (items.length === 0) return false;
  items.splice(Math.floor(rnd() * items.length), 1);
  return true;
}

function wallColour(room: Room, delta = 0): string {
  const [h, s, l] = room.wall;
  return hsl(h, s, Math.min(97, Math.max(5, l + delta)));
}

export function roomSvg(room: Room, furniture = ''): string {
  const { width, height, left, right, top, bottom, vanish } = room;
  const far = (x: number, y: number) =>
    `${(vanish.x + (x - vanish.x) * 30).toFixed(1)},${(vanish.y + (y - vanish.y) * 30).toFixed(1)}`;
  const p = (x: number, y: number) => `${x.toFixed(1)},${y.toFixed(1)}`;
  const parts: string[] = [];
  parts.push(`<rect width="${width}" height="${height}" fill="${room.ceiling}"/>`);
  parts.push(
    `<polygon points="${p(left, top)} ${p(left, bottom)} ${far(left, bottom)} ${far(left, top)}" fill="${wallColour(room, room.sideShade[0])}"/>`,
  );
  parts.push(
    `<polygon points="${p(right, top)} ${p(right, bottom)} ${far(right, bottom)} ${far(right, top)}" fill="${wallColour(room, room.sideShade[1])}"/>`,
  );
  parts.push(
    `<polygon points="${p(left, bottom)} ${p(right, bottom)} ${far(right, bottom)} ${far(left, bottom)}" fill="${room.floor.colour}"/>`,
  );
  parts.push(floorPattern(room));
  parts.push(
    `<rect x="${left}" y="${top}" width="${right - left}" height="${bottom - top}" fill="${wallColour(room)}"/>`,
  );
  for (const line of [...room.wallLines].sort((a, b) => a.x - b.x))
    parts.push(
      `<rect x="${line.x}" y="${top}" width="${right - line.x}" height="${bottom - top}" fill="${wallColour(room, line.shade)}"/>`,
    );
  const skirting = Math.max(2, 0.035 * (bottom - top));
  parts.push(
    `<rect x="${left}" y="${bottom - skirting}" width="${right - left}" height="${skirting}" fill="${room.skirting}"/>`,
  );
  for (const window of room.windows) parts.push(windowSvg(window));
  for (const door of room.doors) parts.push(doorSvg(door));
  parts.push(
    `<ellipse cx="${room.light.x}" cy="${room.light.y}" rx="${0.45 * width}" ry="${0.35 * height}" fill="url(#light)"/>`,
    `<rect width="${width}" height="${height}" fill="url(#vignette)"/>`,
  );
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">
<defs>
<radialGradient id="light"><stop offset="0" stop-color="#fff6e0" stop-opacity="${room.light.strength}"/><stop offset="1" stop-color="#fff6e0" stop-opacity="0"/></radialGradient>
<radialGradient id="vignette" r="0.75"><stop offset="0.55" stop-color="#000" stop-opacity="0"/><stop offset="1" stop-color="#000" stop-opacity="0.28"/></radialGradient>
<filter id="soft" x="-50%" y="-50%" width="200%" height="200%"><feGaussianBlur stdDeviation="${(0.006 * width).toFixed(1)}"/></filter>
</defs>
${parts.join('\n')}
${furniture}
</svg>`;
}

function floorPattern(room: Room): string {
  const { left, right, bottom, vanish, floor, width } = room;
  if (floor.kind === 'carpet') return '';
  const lines: string[] = [];
  const count = floor.kind === 'planks' ? 26 : 12;
  for (let i = -count; i <= 2 * count; i++) {
    const x = left + ((right - left) * i) / count;
    const fx = vanish.x + (x - vanish.x) * 30;
    const fy = vanish.y + (bottom - vanish.y) * 30;
    lines.push(`<line x1="${x.toFixed(1)}" y1="${bottom}" x2="${fx.toFixed(1)}" y2="${fy.toFixed(1)}"/>`);
  }
  if (floor.kind === 'tiles') {
    for (let k = 1; k < 10; k++) {
      const y = bottom + (room.height - bottom) * (k / 8) ** 1.5;
      lines.push(`<line x1="0" y1="${y.toFixed(1)}" x2="${width}" y2="${y.toFixed(1)}"/>`);
    }
  }
  const stroke = Math.max(1, width / 1200);
  return `<g stroke="${floor.line}" stroke-width="${stroke}" stroke-opacity="0.35">${lines.join('')}</g>`;
}

function windowSvg(w: Window): string {
  const frame = Math.max(2, 0.035 * w.width);
  const view: string[] = [];
  for (const b of w.buildings) {
    const bh = b.height * w.height;
    view.push(
      `<rect x="${w.x + b.x * w.width}" y="${w.y + w.height * 0.75 - bh}" width="${b.width * w.width}" height="${bh}" fill="${b.colour}"/>`,
    );
  }
  view.push(
    `<rect x="${w.x}" y="${w.y + w.height * 0.75}" width="${w.width}" height="${w.height * 0.25}" fill="hsl(100,25%,45%)"/>`,
  );
  for (const t of w.trees)
    view.push(
      `<circle cx="${w.x + t.cx * w.width}" cy="${w.y + t.cy * w.height}" r="${t.r * w.width}" fill="${t.colour}"/>`,
    );
  const bars: string[] = [];
  for (let k = 1; k <= w.mullions; k++) {
    const x = w.x + (w.width * k) / (w.mullions + 1) - frame / 3;
    bars.push(`<rect x="${x}" y="${w.y}" width="${(2 * frame) / 3}" height="${w.height}" fill="${w.frame}"/>`);
  }
  if (w.mullions > 0)
    bars.push(
      `<rect x="${w.x}" y="${w.y + w.height * 0.4}" width="${w.width}" height="${(2 * frame) / 3}" fill="${w.frame}"/>`,
    );
  const id = `v${Math.round(w.x)}_${Math.round(w.y)}`;
  return `<rect x="${w.x - frame}" y="${w.y - frame}" width="${w.width + 2 * frame}" height="${w.height + 2 * frame}" fill="${w.frame}"/>
<defs><clipPath id="${id}"><rect x="${w.x}" y="${w.y}" width="${w.width}" height="${w.height}"/></clipPath>
<linearGradient id="s${id}" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="${w.sky[0]}"/><stop offset="1" stop-color="${w.sky[1]}"/></linearGradient></defs>
<rect x="${w.x}" y="${w.y}" width="${w.width}" height="${w.height}" fill="url(#s${id})"/>
<g clip-path="url(#${id})">${view.join('')}</g>${bars.join('')}
<rect x="${w.x - 2 * frame}" y="${w.y + w.height + frame}" width="${w.width + 4 * frame}" height="${1.3 * frame}" fill="${w.frame}"/>
<rect x="${w.x - 2 * frame}" y="${w.y + w.height + 2.3 * frame}" width="${w.width + 4 * frame}" height="${0.6 * frame}" fill="#000" opacity="0.12"/>`;
}

function doorSvg(d: Door): string {
  const casing = Math.max(2, 0.07 * d.width);
  const panels: string[] = [];
  for (let k = 0; k < d.panels; k++) {
    const ph = (d.height * 0.8) / d.panels;
    panels.push(
      `<rect x="${d.x + 0.15 * d.width}" y="${d.y + 0.08 * d.height + k * (ph + 0.02 * d.height)}" width="${0.7 * d.width}" height="${ph - 0.02 * d.height}" fill="none" stroke="#000" stroke-opacity="0.18" stroke-width="${Math.max(1, 0.015 * d.width)}"/>`,
    );
  }
  const handle = Math.max(2, 0.05 * d.width);
  return `<rect x="${d.x - casing}" y="${d.y - casing}" width="${d.width + 2 * casing}" height="${d.height + casing}" fill="${d.casing}"/>
<rect x="${d.x}" y="${d.y}" width="${d.width}" height="${d.height}" fill="${d.leaf}"/>${panels.join('')}
<circle cx="${d.x + 0.85 * d.width}" cy="${d.y + 0.52 * d.height}" r="${handle}" fill="#8a8070"/>
<rect x="${d.x}" y="${d.y}" width="${0.04 * d.width}" height="${d.height}" fill="#000" opacity="0.12"/>`;
}

/**
 * Furniture standing on the floor: sofas, tables, chairs, beds, sideboards, plants and lamps with contact shadows,
 * nearer pieces lower and larger. Pieces keep clear of doors (nobody stages in front of one).
 */
export function furnitureSvg(rnd: Random, room: Room, keepClear: Opening[] = []): string {
  // Perspective: a floor point at picture row y is (y − horizon) / camera height pixels per metre, so pieces lower
  // than the camera never rise above the horizon and nearer ones are larger.
  const camera = (2.6 * (room.bottom - room.vanish.y)) / wallHeight(room);
  const count = Math.floor(between(rnd, 2, 7));
  const pieces: Array<{ depth: number; svg: string }> = [];
  for (let i = 0; i < count; i++) {
    const depth = rnd() ** 1.3;
    const base = room.bottom + depth * 0.92 * (room.height - room.bottom);
    const scale = (base - room.vanish.y) / camera;
    const kind = pick(rnd, ['sofa', 'table', 'chair', 'bed', 'sideboard', 'plant', 'lamp', 'sofa', 'table'] as const);
    const size = {
      sofa: [between(rnd, 1.6, 2.4), between(rnd, 0.75, 0.95)],
      table: [between(rnd, 0.8, 1.8), between(rnd, 0.4, 0.78)],
      chair: [between(rnd, 0.5, 0.8), between(rnd, 0.8, 1.0)],
      bed: [between(rnd, 1.4, 2.0), between(rnd, 0.9, 1.2)],
      sideboard: [between(rnd, 1.0, 2.0), between(rnd, 0.7, 0.95)],
      plant: [between(rnd, 0.4, 0.8), between(rnd, 0.6, 1.5)],
      lamp: [between(rnd, 0.3, 0.45), between(rnd, 1.2, 1.65)],
    }[kind];
    const w = size[0]! * scale;
    const h = size[1]! * scale;
    let x = between(rnd, -0.1 * w, room.width - 0.9 * w);
    const blocked = (at: number) => keepClear.some((o) => at < o.x + o.width && o.x < at + w);
    for (let attempt = 0; attempt < 20 && blocked(x); attempt++) x = between(rnd, -0.1 * w, room.width - 0.9 * w);
    if (blocked(x)) continue;
    pieces.push({ depth, svg: pieceSvg(rnd, kind, x, base - h, w, h) });
  }
  return pieces
    .sort((a, b) => a.depth - b.depth)
    .map((piece) => piece.svg)
    .join('\n');
}

function pieceSvg(rnd: Random, kind: string, x: number, y: number, w: number, h: number): string {
  const colour = hsl(between(rnd, 0, 360), between(rnd, 10, 60), between(rnd, 15, 75));
  const dark = hsl(between(rnd, 15, 35), between(rnd, 20, 40), between(rnd, 10, 30));
  const shadow = `<ellipse cx="${x + w / 2}" cy="${y + h}" rx="${0.6 * w}" ry="${Math.max(2, 0.08 * w)}" fill="#000" opacity="0.35" filter="url(#soft)"/>`;
  const leg = Math.max(1.5, 0.03 * w);
  let body = '';
  if (kind === 'sofa' || kind === 'chair') {
    body = `<rect x="${x}" y="${y}" width="${w}" height="${0.55 * h}" rx="${0.06 * w}" fill="${colour}"/>
<rect x="${x}" y="${y + 0.4 * h}" width="${w}" height="${0.45 * h}" rx="${0.04 * w}" fill="${colour}" stroke="#000" stroke-opacity="0.2"/>
<rect x="${x + 0.05 * w}" y="${y + 0.85 * h}" width="${leg}" height="${0.15 * h}" fill="${dark}"/><rect x="${x + 0.95 * w - leg}" y="${y + 0.85 * h}" width="${leg}" height="${0.15 * h}" fill="${dark}"/>`;
  } else if (kind === 'table') {
    body = `<rect x="${x}" y="${y}" width="${w}" height="${0.1 * h}" fill="${colour}"/>
<rect x="${x + 0.05 * w}" y="${y + 0.1 * h}" width="${leg}" height="${0.9 * h}" fill="${dark}"/><rect x="${x + 0.95 * w - leg}" y="${y + 0.1 * h}" width="${leg}" height="${0.9 * h}" fill="${dark}"/>`;
  } else if (kind === 'bed') {
    body = `<rect x="${x}" y="${y}" width="${w}" height="${h}" fill="${dark}"/>
<rect x="${x + 0.03 * w}" y="${y + 0.45 * h}" width="${0.94 * w}" height="${0.45 * h}" rx="${0.03 * w}" fill="${colour}"/>
<rect x="${x + 0.1 * w}" y="${y + 0.38 * h}" width="${0.3 * w}" height="${0.15 * h}" rx="${0.03 * w}" fill="#f4f1ea"/><rect x="${x + 0.6 * w}" y="${y + 0.38 * h}" width="${0.3 * w}" height="${0.15 * h}" rx="${0.03 * w}" fill="#f4f1ea"/>`;
  } else if (kind === 'sideboard') {
    body = `<rect x="${x}" y="${y}" width="${w}" height="${0.9 * h}" fill="${colour}"/>
<line x1="${x + w / 2}" y1="${y}" x2="${x + w / 2}" y2="${y + 0.9 * h}" stroke="#000" stroke-opacity="0.3"/>
<rect x="${x + 0.05 * w}" y="${y + 0.9 * h}" width="${leg}" height="${0.1 * h}" fill="${dark}"/><rect x="${x + 0.95 * w - leg}" y="${y + 0.9 * h}" width="${leg}" height="${0.1 * h}" fill="${dark}"/>`;
  } else if (kind === 'plant') {
    const leaf = hsl(between(rnd, 90, 140), between(rnd, 30, 60), between(rnd, 20, 40));
    const blobs = Array.from({ length: 6 }, () => {
      const r = between(rnd, 0.2, 0.35) * w;
      return `<circle cx="${x + between(rnd, 0.25, 0.75) * w}" cy="${y + between(rnd, 0.2, 0.6) * h}" r="${r}" fill="${leaf}"/>`;
    }).join('');
    body = `${blobs}<rect x="${x + 0.25 * w}" y="${y + 0.7 * h}" width="${0.5 * w}" height="${0.3 * h}" fill="${colour}"/>`;
  } else {
    body = `<rect x="${x + 0.47 * w}" y="${y + 0.2 * h}" width="${0.06 * w}" height="${0.8 * h}" fill="${dark}"/>
<polygon points="${x + 0.15 * w},${y + 0.22 * h} ${x + 0.85 * w},${y + 0.22 * h} ${x + 0.7 * w},${y} ${x + 0.3 * w},${y}" fill="${colour}"/>`;
  }
  return shadow + body;
}

/** A room (and optional furniture) as a photo: rasterised, graded, with seeded sensor noise, as a JPEG. */
export async function photo(
  room: Room,
  rnd: Random,
  options: { furniture?: string; style?: Style } = {},
): Promise<Buffer> {
  let image = sharp(Buffer.from(roomSvg(room, options.furniture))).removeAlpha();
  if (options.style) image = image.recomb(gradeMatrix(STYLE_LOOKS[options.style].grade));
  const flat = await image.raw().toBuffer({ resolveWithObject: true });
  const tile = 97;
  const noise = Buffer.alloc(tile * tile * 3);
  for (let i = 0; i < tile * tile; i++) {
    const v = Math.round(128 + (rnd() + rnd() + rnd() - 1.5) * room.noise * 2);
    noise[i * 3] = v;
    noise[i * 3 + 1] = v;
    noise[i * 3 + 2] = v;
  }
  return sharp(flat.data, { raw: { width: flat.info.width, height: flat.info.height, channels: flat.info.channels } })
    .composite([{ input: noise, raw: { width: tile, height: tile, channels: 3 }, tile: true, blend: 'overlay' }])
    .jpeg({ quality: room.quality })
    .toBuffer();
}

export const FURNITURE_ONLY = ['builtin_engine', 'furniture_blobs'] as const;
export const STRUCTURAL = [
  'window_added',
  'window_removed',
  'window_moved',
  'door_added',
  'door_removed',
  'door_moved',
  'wall_line_added',
  'wall_line_moved',
] as const;
export type FakeEngine = (typeof FURNITURE_ONLY)[number] | (typeof STRUCTURAL)[number];

export interface Case {
  engine: FakeEngine;
  input: Buffer;
  output: Buffer;
  /** Where the engine says it put furniture (the builtin engine's scene); undefined: it does not say. */
  allowed?: FidelityRegion[];
  width: number;
  height: number;
}

const builtin = createImageEngine({ concurrency: 1 });

/**
 * One room staged by one fake engine. Structural engines change the building and also furnish the room, as a
 * generative model would; every output is graded like a style and re-encoded with fresh noise.
 */
export async function makeCase(engine: FakeEngine, seed: number, size?: [number, number]): Promise<Case> {
  const rnd = random(seed);
  const [width, height] = size ?? pick(rnd, SIZES);
  for (;;) {
    const room = randomRoom(rnd, width, height);
    const changed: Room = structuredClone(room);
    if (!change(engine, rnd, changed)) continue;
    const input = await photo(room, rnd);
    const style = pick(rnd, STYLES);
    if (engine === 'builtin_engine') {
      const roomType: RoomType = pick(rnd, ROOM_TYPES);
      const staged = await builtin.stage(input, { style, roomType });
      return { engine, input, output: staged.data, allowed: staged.scene?.pieces, width, height };
    }
    const furniture = furnitureSvg(rnd, changed, [...room.doors, ...changed.doors]);
    const output = await photo(changed, rnd, { furniture, style });
    return { engine, input, output, width, height };
  }
}

function change(engine: FakeEngine, rnd: Random, room: Room): boolean {
  switch (engine) {
    case 'builtin_engine':
    case 'furniture_blobs':
      return true;
    case 'window_added':
      return addWindow(rnd, room);
    case 'window_removed':
      return removeOne(rnd, room.windows);
    case 'window_moved':
      return moveOpening(rnd, room, room.windows);
    case 'door_added':
      return addDoor(rnd, room);
    case 'door_removed':
      return removeOne(rnd, room.doors);
    case 'door_moved':
      return moveOpening(rnd, room, room.doors);
    case 'wall_line_added':
      return addWallLine(rnd, room);
    case 'wall_line_moved':
      return moveWallLine(rnd, room);
  }
}

export interface ClassResult {
  engine: FakeEngine;
  scores: number[];
  lost: number[];
  added: number[];
  /** Share of scores below FIDELITY_MIN: caught for a structural engine, wrongly rejected for a furniture one. */
  belowMin: number;
}

/**
 * Scores `count` rooms staged by one fake engine (two at a time: decoding and drawing run on sharp's threads).
 * Case i of an engine always has the same seed, so a run is repeatable.
 */
export async function evaluateEngine(
  engine: FakeEngine,
  count: number,
  options: {
    seed?: number;
    size?: [number, number];
    onCase?: (c: Case, score: number) => void;
    /** A folder where generated cases are kept and read back on the next run (drawing them is most of the time). */
    cacheDir?: string;
  } = {},
): Promise<ClassResult> {
  const offset = (options.seed ?? 1) * 1_000_003 + [...FURNITURE_ONLY, ...STRUCTURAL].indexOf(engine) * 10_007;
  const results: Array<{ score: number; lost: number; added: number }> = new Array(count);
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const i = next++;
      const c = await cachedCase(options.cacheDir, engine, offset + i * 7919, options.size);
      const result = await scoreFidelity(c.input, c.output, { allowed: c.allowed });
      options.onCase?.(c, result.score);
      results[i] = result;
    }
  };
  await Promise.all([worker(), worker()]);
  const scores = results.map((r) => r.score);
  return {
    engine,
    scores,
    lost: results.map((r) => r.lost),
    added: results.map((r) => r.added),
    belowMin: scores.filter((s) => s < FIDELITY_MIN).length / count,
  };
}

/** makeCase, kept in `dir` (when given) under the case's engine, seed and size. */
async function cachedCase(
  dir: string | undefined,
  engine: FakeEngine,
  seed: number,
  size?: [number, number],
): Promise<Case> {
  if (!dir) return makeCase(engine, seed, size);
  const base = path.join(dir, `${engine}-${seed}${size ? `-${size.join('x')}` : ''}`);
  try {
    const meta = JSON.parse(await readFile(`${base}.json`, 'utf8')) as Omit<Case, 'input' | 'output'>;
    const [input, output] = await Promise.all([readFile(`${base}-in.jpg`), readFile(`${base}-out.jpg`)]);
    return { ...meta, input, output };
  } catch {
    const made = await makeCase(engine, seed, size);
    const { input, output, ...meta } = made;
    await mkdir(dir, { recursive: true });
    await Promise.all([writeFile(`${base}-in.jpg`, input), writeFile(`${base}-out.jpg`, output)]);
    // The metadata last: a case is read back only once all three files are whole.
    await writeFile(`${base}.json`, JSON.stringify(meta));
    return made;
  }
}
