/**
 * Styles, room types and the sponsored-product catalog that seeds the catalog table.
 * Product artwork lives in ./assets/products/ and is referenced by file name.
 */

export const STYLES = [
  'modern',
  'scandinavian',
  'industrial',
  'minimalist',
  'mid_century',
  'coastal',
  'farmhouse',
  'luxury',
  'bohemian',
  'traditional',
] as const;
export type Style = (typeof STYLES)[number];
export const DEFAULT_STYLE: Style = 'modern';

export const ROOM_TYPES = [
  'living_room',
  'bedroom',
  'dining_room',
  'kitchen',
  'office',
  'bathroom',
  'kids_room',
  'outdoor',
] as const;
export type RoomType = (typeof ROOM_TYPES)[number];
export const DEFAULT_ROOM_TYPE: RoomType = 'living_room';

export function isStyle(value: unknown): value is Style {
  return typeof value === 'string' && (STYLES as readonly string[]).includes(value);
}

export function isRoomType(value: unknown): value is RoomType {
  return typeof value === 'string' && (ROOM_TYPES as readonly string[]).includes(value);
}

/** Where a product category goes in a picture; the engine picks slots by this. */
export const PRODUCT_CATEGORIES = [
  'sofa',
  'armchair',
  'side_table',
  'lamp',
  'plant',
  'rug',
  'artwork',
  'mirror',
  'bookshelf',
  'pouf',
  'vase',
  'bar_stool',
] as const;
export type ProductCategory = (typeof PRODUCT_CATEGORIES)[number];

export interface SponsoredProduct {
  id: string;
  name: string;
  brand: string;
  category: ProductCategory;
  /** File name under server/imaging/assets/products/. */
  asset: string;
  /** Revenue per 1 000 impressions, in US cents. */
  revenue_per_mille_cents: number;
  room_types: readonly RoomType[];
}

/** Made-up brands and products; ids are stable so seeds and tests can name them. */
export const SPONSORED_PRODUCTS: readonly SponsoredProduct[] = [
  {
    id: 'prd_nordvik_alma_sofa',
    name: 'Alma 3-Seat Sofa',
    brand: 'Nordvik Living',
    category: 'sofa',
    asset: 'nordvik-alma-sofa.svg',
    revenue_per_mille_cents: 900,
    room_types: ['living_room', 'office'],
  },
  {
    id: 'prd_lumora_arc_lamp',
    name: 'Arc Floor Lamp',
    brand: 'Lumora',
    category: 'lamp',
    asset: 'lumora-arc-lamp.svg',
    revenue_per_mille_cents: 420,
    room_types: ['living_room', 'bedroom', 'office', 'kids_room'],
  },
  {
    id: 'prd_verdant_fiddle_fig',
    name: 'Fiddle Leaf Fig in Stone Pot',
    brand: 'Verdant & Co',
    category: 'plant',
    asset: 'verdant-fiddle-fig.svg',
    revenue_per_mille_cents: 260,
    room_types: ['living_room', 'bedroom', 'dining_room', 'kitchen', 'office', 'bathroom', 'outdoor'],
  },
  {
    id: 'prd_kasbah_atlas_rug',
    name: 'Atlas Wool Rug 200×300',
    brand: 'Kasbah Looms',
    category: 'rug',
    asset: 'kasbah-atlas-rug.svg',
    revenue_per_mille_cents: 540,
    room_types: ['living_room', 'bedroom', 'dining_room', 'office', 'kids_room'],
  },
  {
    id: 'prd_gallerie_horizon_print',
    name: 'Horizon Framed Print',
    brand: 'Gallerie Nine',
    category: 'artwork',
    asset: 'gallerie-horizon-print.svg',
    revenue_per_mille_cents: 310,
    room_types: ['living_room', 'bedroom', 'dining_room', 'kitchen', 'office', 'kids_room'],
  },
  {
    id: 'prd_hollis_lounge_chair',
    name: 'Hollis Lounge Chair',
    brand: 'Hollis & Reed',
    category: 'armchair',
    asset: 'hollis-lounge-chair.svg',
    revenue_per_mille_cents: 760,
    room_types: ['living_room', 'bedroom', 'office'],
  },
  {
    id: 'prd_oakhaus_drum_side_table',
    name: 'Drum Side Table',
    brand: 'Oakhaus',
    category: 'side_table',
    asset: 'oakhaus-drum-side-table.svg',
    revenue_per_mille_cents: 180,
    room_types: ['living_room', 'bedroom', 'office', 'outdoor'],
  },
  {
    id: 'prd_solenne_sunburst_mirror',
    name: 'Sunburst Wall Mirror',
    brand: 'Solenne',
    category: 'mirror',
    asset: 'solenne-sunburst-mirror.svg',
    revenue_per_mille_cents: 350,
    room_types: ['living_room', 'bedroom', 'dining_room', 'bathroom'],
  },
  {
    id: 'prd_stackwell_ladder_shelf',
    name: 'Ladder Bookshelf',
    brand: 'Stackwell',
    category: 'bookshelf',
    asset: 'stackwell-ladder-shelf.svg',
    revenue_per_mille_cents: 230,
    room_types: ['living_room', 'office', 'kids_room', 'bedroom'],
  },
  {
    id: 'prd_mira_knit_pouf',
    name: 'Chunky Knit Pouf',
    brand: 'Mira Textiles',
    category: 'pouf',
    asset: 'mira-knit-pouf.svg',
    revenue_per_mille_cents: 150,
    room_types: ['living_room', 'bedroom', 'kids_room'],
  },
  {
    id: 'prd_terracina_floor_vase',
    name: 'Terracina Floor Vase',
    brand: 'Terracina Ceramics',
    category: 'vase',
    asset: 'terracina-floor-vase.svg',
    revenue_per_mille_cents: 200,
    room_types: ['living_room', 'dining_room', 'bathroom', 'outdoor', 'kitchen'],
  },
  {
    id: 'prd_copperline_counter_stool',
    name: 'Copperline Counter Stool',
    brand: 'Copperline',
    category: 'bar_stool',
    asset: 'copperline-counter-stool.svg',
    revenue_per_mille_cents: 380,
    room_types: ['kitchen', 'dining_room'],
  },
];
