import type { DisclosureProfile } from '../../../db/schema.js';
import { randomBase62 } from '../../ids.js';
import type { Disclosure, Label } from '../../imaging/engine.js';

/*
 * How a staged picture says it was staged. The profile decides what is drawn on the image (the "Virtually staged"
 * mark, a QR code to the original's page) and whether responses carry a caption an agent can paste under a listing.
 * Every staged, decluttered or placed image has a public page of its unaltered original at `/o/<token>`.
 */

export const DISCLOSURE_PROFILES = [
  'none',
  'label',
  'caption',
  'ca_ab723',
] as const satisfies readonly DisclosureProfile[];

/** Until an account chooses: no mark (every market accepts that) and the caption with the original's link. */
export const DEFAULT_DISCLOSURE: DisclosureProfile = 'caption';

/** The older `label` option names two of the profiles. */
export function profileOfLabel(label: Label): DisclosureProfile {
  return label === 'virtually_staged' ? 'label' : 'none';
}

/** Whether the profile draws the mark, as the older `label` option says it. */
export function labelOf(profile: DisclosureProfile): Label {
  return profile === 'label' || profile === 'ca_ab723' ? 'virtually_staged' : 'none';
}

/** What the finishing step draws for this profile on an image whose original's page is `originalUrl`. */
export function drawingOf(profile: DisclosureProfile, originalUrl: string): Disclosure {
  return { label: labelOf(profile), ...(profile === 'ca_ab723' && { qrUrl: originalUrl }) };
}

/** The sentence an agent pastes under the picture; null when the profile discloses nothing. */
export function disclosureCaption(profile: DisclosureProfile | null, originalUrl: string | null): string | null {
  if (profile === null || profile === 'none' || originalUrl === null) return null;
  return `Virtually staged: furniture and decor were added digitally. Original photo: ${originalUrl}`;
}

/** The page's capability: 26 base62 characters (about 155 bits), never derived from the image id. */
export function newOriginalToken(): string {
  return randomBase62(26);
}

export function isOriginalToken(token: string): boolean {
  return /^[0-9A-Za-z]{26}$/.test(token);
}

export function originalPageUrl(publicBaseUrl: string, token: string | null): string | null {
  return token === null ? null : `${publicBaseUrl}/o/${token}`;
}
