import { AppError } from '../../errors.js';
import type { Disclosure, EngineImage, Scene } from '../../imaging/engine.js';
import { type FidelityChange, scoreFidelity } from '../../imaging/fidelity/index.js';
import { disclosureRegions } from '../../imaging/finish.js';
import type { ImagingDeps } from './deps.js';
import { freshSeed } from './variations.js';

/**
 * An engine output that kept the room, the seed that drew it, its fidelity score (three decimals) and what the check
 * still found changed (kinds and boxes in the photo's pixels; usually none).
 */
export interface CheckedOutput<O extends EngineImage> {
  output: O;
  seed: number;
  fidelity: number;
  changes: FidelityChange[];
}

/**
 * The fidelity check every staged, decluttered and re-rendered image goes through, after the engine
 * answers and before anything is stored or charged final: `render(seed)` is scored against `input` where furniture
 * may not go (the scene's pieces say where it may, when the engine knows them; the disclosure it draws never
 * counts). Below FIDELITY_MIN a remote engine draws once more with a new seed; still below, 422 `structure_changed`
 * (the caller's undo refunds the hold). The built-in engine only draws furniture over the photo, so a second draw
 * would not change a failing score: it fails at once. The 422 names what changed in the best-scoring drawing.
 */
export async function renderChecked<O extends EngineImage & { scene?: Scene }>(
  deps: Pick<ImagingDeps, 'engine' | 'fidelityMin'>,
  input: Buffer,
  first: { seed: number; drawing: Disclosure },
  render: (seed: number) => Promise<O>,
): Promise<CheckedOutput<O>> {
  // The built-in engine only draws furniture over the photo, on the photo's own grid: a second draw would not change
  // a failing score, and its output needs no registration.
  const builtin = deps.engine.capabilities.engine === 'builtin';
  const attempts = builtin ? 1 : 2;
  let seed = first.seed;
  let best = 0;
  let bestChanges: FidelityChange[] = [];
  for (let attempt = 1; ; attempt++) {
    const output = await render(seed);
    const { score, changes } = await scoreFidelity(input, output.data, {
      allowed: output.scene?.pieces,
      ignore: disclosureRegions(output, first.drawing),
      onPhotoGrid: builtin,
    });
    const fidelity = Math.floor(score * 1000) / 1000;
    if (score >= deps.fidelityMin) return { output, seed, fidelity, changes };
    if (attempt === 1 || fidelity > best) bestChanges = changes;
    best = Math.max(best, fidelity);
    if (attempt >= attempts) break;
    let next = freshSeed();
    while (next === seed) next = freshSeed();
    seed = next;
  }
  throw new AppError(
    'structure_changed',
    `The staging engine changed the building (walls, windows, doors or the view; fidelity ${best.toFixed(3)}, ` +
      `at least ${deps.fidelityMin} needed)${attempts > 1 ? ' twice' : ''}; your credits were refunded and nothing was stored.`,
    { fidelity: best, changes: bestChanges },
  );
}
