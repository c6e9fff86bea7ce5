/**
 * `npm run bench:room-check`: the room check (server/imaging/room-check.ts) on real room photos and on real pictures
 * that are not rooms. Prints each picture's measures and verdict, then the false-refusal rate on the rooms (target
 * ≤ 1 %) and the refusal rate on the rest. Env: REAL_ROOMS_DIR (default test/fixtures/real-rooms), NOT_ROOMS_DIR
 * (default test/fixtures/not-rooms). Exits 1 when a target is missed.
 */
import { measureRoomSet, ROOM_TARGETS, roomSetDirs } from '../test/fixtures/room-set.js';

const pct = (share: number) => `${(share * 100).toFixed(1)} %`;

async function main() {
  const { rooms: roomsDir, notRooms: notRoomsDir } = roomSetDirs();
  let failed = false;
  for (const [label, dir, room] of [
    ['room photos', roomsDir, true],
    ['not rooms', notRoomsDir, false],
  ] as const) {
    const result = await measureRoomSet(dir);
    console.log(`\n${label} (${dir}): ${result.pictures.length} pictures`);
    for (const { name, verdict } of result.pictures) {
      const m = verdict.measures;
      const said = verdict.room ? 'room' : `REFUSED (${verdict.reason})`;
      console.log(
        `  ${name.padEnd(40)} edges ${m.edges.toFixed(3)} smooth ${m.smooth.toFixed(3)} sat ${m.saturation.toFixed(3)} ` +
          `vivid ${m.vivid.toFixed(3)} axis ${m.axis.toFixed(3)} strong ${m.strong.toFixed(3)} lines ${m.lines.toFixed(2)}  ${said}`,
      );
    }
    const share = result.refused / Math.max(1, result.pictures.length);
    if (room) {
      const ok = share <= ROOM_TARGETS.maxFalseRefusals;
      failed ||= !ok || result.pictures.length === 0;
      console.log(
        `  false refusals: ${result.refused}/${result.pictures.length} = ${pct(share)} (target ≤ ${pct(ROOM_TARGETS.maxFalseRefusals)})`,
      );
    } else {
      const ok = share >= ROOM_TARGETS.minRefusals;
      failed ||= !ok;
      console.log(
        `  refused: ${result.refused}/${result.pictures.length} = ${pct(share)} (target ≥ ${pct(ROOM_TARGETS.minRefusals)})`,
      );
    }
  }
  process.exitCode = failed ? 1 : 0;
}

await main();
