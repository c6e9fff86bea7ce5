/** Reads a folder of pictures (recursively) and judges each with the room check: shared by bench:room-check and its test. */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { judgeRoomPhoto, type RoomVerdict } from '../server/imaging/room-check.js';

export const ROOM_TARGETS = { maxFalseRefusals: 0.01, minRefusals: 0.5 } as const;

export function roomSetDirs(): { rooms: string; notRooms: string } {
  return {
    rooms: process.env.REAL_ROOMS_DIR || 'test/fixtures/real-rooms',
    notRooms: process.env.NOT_ROOMS_DIR || 'test/fixtures/not-rooms',
  };
}

export function picturesIn(dir: string): string[] {
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return [];
  }
  return entries.sort().flatMap((entry) => {
    const full = path.join(dir, entry);
    if (statSync(full).isDirectory()) return picturesIn(full);
    return /\.(jpe?g|png|webp|avif|tiff?)$/i.test(entry) ? [full] : [];
  });
}

export async function measureRoomSet(
  dir: string,
): Promise<{ pictures: Array<{ name: string; verdict: RoomVerdict }>; refused: number }> {
  const pictures: Array<{ name: string; verdict: RoomVerdict }> = [];
  for (const file of picturesIn(dir))
    pictures.push({ name: path.relative(dir, file), verdict: await judgeRoomPhoto(readFileSync(file)) });
  return { pictures, refused: pictures.filter(({ verdict }) => !verdict.room).length };
}
