/**
 * Per-style look: the colour palette filled into the SVG furniture templates, and the style's colour grade. The
 * built-in engine never applies the grade to the room (it would recolour the walls and floor, which staging must
 * keep); bench:fidelity uses it to stand for an engine that does. Tokens in the SVGs are `{{name}}` with optional `-l` (lighter), `-d`, `-dd` (darker).
 */
import type { Style } from './catalog-data.js';

export interface Palette {
  body: string;
  wood: string;
  metal: string;
  accent: string;
  textile: string;
  textile2: string;
  leaf: string;
  pot: string;
  art1: string;
  art2: string;
  art3: string;
  frame: string;
  linen: string;
  shade: string;
  stone: string;
}

export interface Grade {
  /** Per-channel gain (R, G, B): the warm or cool cast of the style. */
  tint: [number, number, number];
  brightness: number;
  /** 1 keeps colours, below 1 mutes them, above 1 makes them richer. */
  saturation: number;
}

const warm = (k: number): Grade['tint'] => [1 + k, 1 + k / 4, 1 - k];
const cool = (k: number): Grade['tint'] => [1 - k, 1, 1 + k];

export type Matrix3 = [[number, number, number], [number, number, number], [number, number, number]];
const LUMA = [0.2126, 0.7152, 0.0722] as const;

/**
 * The whole grade as one 3×3 matrix (brightness · tint · saturation), so the photo is graded in a single
 * libvips pass; modulate() would round-trip through LCh and costs several times more on a 12-MP picture.
 */
export function gradeMatrix(grade: Grade): Matrix3 {
  const { tint, brightness, saturation } = grade;
  const row = (channel: 0 | 1 | 2): [number, number, number] => {
    const gain = tint[channel] * brightness;
    return [0, 1, 2].map(
      (col) => gain * ((1 - saturation) * LUMA[col as 0 | 1 | 2] + (col === channel ? saturation : 0)),
    ) as [number, number, number];
  };
  return [row(0), row(1), row(2)];
}

export const STYLE_LOOKS: Record<Style, { palette: Palette; grade: Grade }> = {
  modern: {
    palette: {
      body: '#80868f',
      wood: '#3b3835',
      metal: '#1f1f1f',
      accent: '#d9a441',
      textile: '#e6e3dd',
      textile2: '#5d6b7a',
      leaf: '#3f7d4e',
      pot: '#f0f0ee',
      art1: '#1f3b57',
      art2: '#e07a5f',
      art3: '#f2e4c4',
      frame: '#151515',
      linen: '#f4f4f2',
      shade: '#f3efe6',
      stone: '#e9e9e9',
    },
    grade: { tint: cool(0.03), brightness: 1.02, saturation: 0.92 },
  },
  scandinavian: {
    palette: {
      body: '#d6d0c6',
      wood: '#d8b98c',
      metal: '#2b2b2b',
      accent: '#8fa7b5',
      textile: '#f1ede6',
      textile2: '#b9ad9b',
      leaf: '#5b8c5a',
      pot: '#e8e2d6',
      art1: '#7f99a8',
      art2: '#c9a98a',
      art3: '#efe9dd',
      frame: '#c9a878',
      linen: '#fbfaf7',
      shade: '#fbf7ef',
      stone: '#f2f0ec',
    },
    grade: { tint: cool(0.04), brightness: 1.1, saturation: 0.8 },
  },
  industrial: {
    palette: {
      body: '#6e4a31',
      wood: '#5e4129',
      metal: '#262626',
      accent: '#b5542d',
      textile: '#6f6a63',
      textile2: '#3f3b37',
      leaf: '#44633f',
      pot: '#4a4a4a',
      art1: '#2d2d2d',
      art2: '#b5542d',
      art3: '#b9b3a6',
      frame: '#1b1b1b',
      linen: '#cfcac0',
      shade: '#333333',
      stone: '#7c7c7c',
    },
    grade: { tint: cool(0.05), brightness: 0.9, saturation: 0.65 },
  },
  minimalist: {
    palette: {
      body: '#ece8e1',
      wood: '#c7b299',
      metal: '#a8a8a8',
      accent: '#2b2b2b',
      textile: '#f4f2ee',
      textile2: '#d6d1c7',
      leaf: '#6b8f5e',
      pot: '#ffffff',
      art1: '#1c1c1c',
      art2: '#c8c2b8',
      art3: '#f4f4f2',
      frame: '#dadada',
      linen: '#ffffff',
      shade: '#ffffff',
      stone: '#f5f5f5',
    },
    grade: { tint: cool(0.01), brightness: 1.08, saturation: 0.7 },
  },
  mid_century: {
    palette: {
      body: '#2f6f6a',
      wood: '#8b5a2b',
      metal: '#c99a3c',
      accent: '#e0a030',
      textile: '#e9dcc3',
      textile2: '#c8662b',
      leaf: '#3c7a3b',
      pot: '#d9a35a',
      art1: '#2f6f6a',
      art2: '#e07a2f',
      art3: '#f2e3c0',
      frame: '#6b4320',
      linen: '#f3ead8',
      shade: '#f2e3c2',
      stone: '#e8e0d0',
    },
    grade: { tint: warm(0.07), brightness: 1.0, saturation: 1.12 },
  },
  coastal: {
    palette: {
      body: '#f1efe8',
      wood: '#cdb48f',
      metal: '#b7b7b2',
      accent: '#3f7fa6',
      textile: '#e7ecef',
      textile2: '#7fa9c3',
      leaf: '#5f9a6b',
      pot: '#f7f3ea',
      art1: '#2f6f99',
      art2: '#7fb3d5',
      art3: '#f1e6cf',
      frame: '#e9e2d0',
      linen: '#ffffff',
      shade: '#f7f3ea',
      stone: '#f0ede5',
    },
    grade: { tint: cool(0.07), brightness: 1.09, saturation: 0.95 },
  },
  farmhouse: {
    palette: {
      body: '#d8cfc0',
      wood: '#7a5535',
      metal: '#333333',
      accent: '#6f7f5c',
      textile: '#c9bda8',
      textile2: '#8d6e53',
      leaf: '#4f7a48',
      pot: '#b8a990',
      art1: '#6f7f5c',
      art2: '#8d6e53',
      art3: '#efe6d4',
      frame: '#5a3e27',
      linen: '#f6f2ea',
      shade: '#efe8da',
      stone: '#e7e1d5',
    },
    grade: { tint: warm(0.06), brightness: 1.02, saturation: 0.85 },
  },
  luxury: {
    palette: {
      body: '#1f3a5a',
      wood: '#2b1d14',
      metal: '#c8a24a',
      accent: '#c8a24a',
      textile: '#e9e4da',
      textile2: '#b89a5e',
      leaf: '#2f5e3e',
      pot: '#f5f1e8',
      art1: '#1f3a5a',
      art2: '#c8a24a',
      art3: '#f0ebe0',
      frame: '#c8a24a',
      linen: '#f7f4ee',
      shade: '#f6eedb',
      stone: '#f1eee9',
    },
    grade: { tint: warm(0.04), brightness: 0.96, saturation: 1.05 },
  },
  bohemian: {
    palette: {
      body: '#b5523b',
      wood: '#8a6238',
      metal: '#a77d3c',
      accent: '#2f7f78',
      textile: '#c9704a',
      textile2: '#f0d3a0',
      leaf: '#3d7a3a',
      pot: '#c9704a',
      art1: '#2f7f78',
      art2: '#d1603d',
      art3: '#f2dca8',
      frame: '#8a6238',
      linen: '#f3e7d3',
      shade: '#e8d3a8',
      stone: '#e6dccb',
    },
    grade: { tint: warm(0.09), brightness: 1.02, saturation: 1.15 },
  },
  traditional: {
    palette: {
      body: '#7a2f34',
      wood: '#5a3520',
      metal: '#b08d48',
      accent: '#2f4f3f',
      textile: '#8a3a35',
      textile2: '#d9c49a',
      leaf: '#3b6b3f',
      pot: '#e8e0cc',
      art1: '#3c4a5e',
      art2: '#5b6e4d',
      art3: '#e6d9b8',
      frame: '#a07a3a',
      linen: '#f4efe3',
      shade: '#efe2c4',
      stone: '#ece6d8',
    },
    grade: { tint: warm(0.05), brightness: 0.97, saturation: 0.95 },
  },
};

function mix(hex: string, target: number, amount: number): string {
  const n = Number.parseInt(hex.slice(1), 16);
  const channels = [(n >> 16) & 255, (n >> 8) & 255, n & 255].map((c) => Math.round(c + (target - c) * amount));
  return `#${channels.map((c) => c.toString(16).padStart(2, '0')).join('')}`;
}

const SHADES: Record<string, (hex: string) => string> = {
  '': (hex) => hex,
  '-l': (hex) => mix(hex, 255, 0.22),
  '-d': (hex) => mix(hex, 0, 0.22),
  '-dd': (hex) => mix(hex, 0, 0.42),
};

/** Fills `{{token}}` placeholders; an unknown token is a bug in an asset, so it fails loudly. */
export function applyPalette(svg: string, palette: Palette): string {
  return svg.replace(/\{\{([a-z0-9]+)(-l|-dd|-d)?\}\}/g, (_match, name: string, shade: string | undefined) => {
    const base = (palette as unknown as Record<string, string | undefined>)[name];
    if (!base) throw new Error(`Unknown palette token {{${name}}} in a furniture asset`);
    const shadeOf = SHADES[shade ?? ''];
    if (!shadeOf) throw new Error(`Unknown shade ${shade} in a furniture asset`);
    return shadeOf(base);
  });
}
