import sharp from 'sharp';
import { emptyRoomImage } from '../../../server/imaging/synthetic-room.js';

export { emptyRoomImage };

/** Mean absolute per-channel difference of two same-size images inside a box. */
export async function meanDifference(
  a: Buffer,
  b: Buffer,
  box: { x: number; y: number; width: number; height: number },
): Promise<number> {
  const region = { left: box.x, top: box.y, width: box.width, height: box.height };
  const [pa, pb] = await Promise.all([a, b].map((img) => sharp(img).extract(region).removeAlpha().raw().toBuffer()));
  let sum = 0;
  for (let i = 0; i < pa!.length; i++) sum += Math.abs(pa![i]! - pb![i]!);
  return sum / pa!.length;
}

export function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (error: unknown) => error,
  );
}
