/**
 * What a generative engine is asked to draw: one table of style × room type (the prompt is the room's line with the
 * style's words), and one negative prompt that forbids touching the architecture. Edit the table, not the code.
 */
import { randomInt } from 'node:crypto';
import type { RoomType, Style } from '../catalog-data.js';

export const PROMPT_TABLE = {
  template:
    'A professionally staged {room}, {style}. Photorealistic interior photograph, natural light, same camera angle.',
  rooms: {
    living_room: 'living room with a sofa, armchairs, a coffee table, a rug, floor lamps and wall art',
    bedroom: 'bedroom with a made bed, bedside tables with lamps, a dresser and soft textiles',
    dining_room: 'dining room with a dining table, matching chairs, a pendant light and a sideboard',
    kitchen: 'kitchen with bar stools at the counter, styled countertops, a fruit bowl and plants',
    office: 'home office with a desk, an ergonomic chair, shelving, a desk lamp and a plant',
    bathroom: 'bathroom with folded towels, a bath mat, toiletries, a mirror and a small plant',
    kids_room: "kids' room with a child's bed, a play rug, toy storage and a reading corner",
    outdoor: 'outdoor terrace with lounge chairs, an outdoor dining set, potted plants and string lights',
  } satisfies Record<RoomType, string>,
  styles: {
    modern: 'modern style: clean lines, neutral palette with black accents, sleek materials',
    scandinavian: 'Scandinavian style: light oak, white and soft grey, wool textiles, hygge',
    industrial: 'industrial style: leather, dark metal, reclaimed wood, Edison bulbs',
    minimalist: 'minimalist style: very few pieces, white and beige, uncluttered surfaces',
    mid_century: 'mid-century modern style: walnut, tapered legs, mustard and teal accents',
    coastal: 'coastal style: white, sand and sea blue, linen, rattan, driftwood',
    farmhouse: 'farmhouse style: distressed wood, cream and sage, shiplap accents, vintage decor',
    luxury: 'luxury style: velvet, marble, brass, rich jewel tones, designer lighting',
    bohemian: 'bohemian style: layered patterned rugs, macrame, rattan, many plants, warm colours',
    traditional: 'traditional style: classic wood furniture, tufted upholstery, warm rich colours',
  } satisfies Record<Style, string>,
  negative:
    'changing the walls, windows, doors, floors, ceiling or the view; moving or removing architecture; ' +
    'blurry, distorted, cartoon, illustration, text, watermark, people, low quality',
  declutter:
    'The same room completely empty: remove all movable furniture, rugs, decor, clutter and personal items. ' +
    'Photorealistic interior photograph, same camera angle and light; bare floor and walls where things stood.',
  declutterNegative:
    'changing the walls, windows, doors, floors, ceiling or the view; moving or removing architecture or built-in ' +
    'fixtures; any furniture, objects or clutter left behind; blurry, distorted, text, watermark, people',
} as const;

export interface StagingPrompt {
  prompt: string;
  negativePrompt: string;
  seed: number;
}

/** Seeds fit every provider's integer input (ComfyUI, Stable Diffusion and Replicate models take 32-bit seeds). */
export const MAX_SEED = 2 ** 31 - 1;

/** The prompt for a request; without a seed one is drawn, so the stored request can be repeated exactly. */
export function stagingPrompt(style: Style, roomType: RoomType, seed?: number): StagingPrompt {
  const prompt = PROMPT_TABLE.template
    .replace('{room}', PROMPT_TABLE.rooms[roomType])
    .replace('{style}', PROMPT_TABLE.styles[style]);
  return { prompt, negativePrompt: PROMPT_TABLE.negative, seed: seed ?? randomInt(0, MAX_SEED) };
}

/** What a generative engine is asked for to empty a room (declutter); the same seed sends the same request. */
export function declutterPrompt(seed?: number): StagingPrompt {
  return {
    prompt: PROMPT_TABLE.declutter,
    negativePrompt: PROMPT_TABLE.declutterNegative,
    seed: seed ?? randomInt(0, MAX_SEED),
  };
}
