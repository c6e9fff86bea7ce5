/**
 * The disclosure profiles (how a staged picture says it was staged: none, label, caption, ca_ab723) as the dashboard offers them, the account's default first: one list for the
 * overview's default and the playground's per-request choice.
 */
export const DISCLOSURE_TEXT = {
  caption: 'Caption with a link to the original, no mark (every market accepts it)',
  label: '“Virtually staged” mark in a corner, and the caption',
  ca_ab723: 'Mark, QR code to the original and caption (California AB 723)',
  none: 'Nothing',
} as const;

export type Disclosure = keyof typeof DISCLOSURE_TEXT;

export const DISCLOSURES = Object.keys(DISCLOSURE_TEXT) as Disclosure[];

export const isDisclosure = (value: string): value is Disclosure => value in DISCLOSURE_TEXT;

/** A fidelity score as people read it: "0.97 (the building is unchanged)". */
export function fidelityText(fidelity: number | null | undefined): string {
  if (fidelity === null || fidelity === undefined) return 'not checked';
  return `${fidelity.toFixed(2)} of 1: walls, windows and doors kept`;
}
