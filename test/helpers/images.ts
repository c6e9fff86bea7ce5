import { randomBytes } from 'node:crypto';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { emptyRoomSvg } from '../../server/imaging/synthetic-room.js';
import type { TestServer } from './server.js';

/**
 * A room-like JPEG of the given size: the drawn empty room (wall, window, skirting, plank floor) under fine random
 * grain, so two calls never give the same bytes and it does not compress to nothing. Image operations refuse
 * pictures that are not rooms (422 not_a_room), so what tests stage has to look like one.
 */
export async function roomJpeg(width = 800, height = 600): Promise<Buffer> {
  const room = await sharp(Buffer.from(emptyRoomSvg(width, height)))
    .removeAlpha()
    .raw()
    .toBuffer();
  const grain = randomBytes(room.length);
  for (let i = 0; i < room.length; i++) room[i] = Math.min(255, Math.max(0, room[i]! + ((grain[i]! % 7) - 3)));
  return sharp(room, { raw: { width, height, channels: 3 } })
    .jpeg({ quality: 85 })
    .toBuffer();
}

export async function roomPng(width = 640, height = 480): Promise<Buffer> {
  return sharp(await roomJpeg(width, height))
    .png()
    .toBuffer();
}

/** The first half of a real JPEG: the header is fine, the scan data stops early. */
export async function truncatedJpeg(): Promise<Buffer> {
  const whole = await roomJpeg(800, 600);
  return whole.subarray(0, Math.floor(whole.length / 2));
}

/** A PNG header claiming 10 000 × 6 000 px (60 megapixels) with a tiny body: a decompression bomb. */
let bomb: Promise<Buffer> | undefined;
export function sixtyMegapixelPng(): Promise<Buffer> {
  bomb ??= sharp({ create: { width: 10_000, height: 6_000, channels: 3, background: { r: 240, g: 240, b: 240 } } })
    .png({ compressionLevel: 9 })
    .toBuffer();
  return bomb;
}

export const textFile = () =>
  Buffer.from('This is not an image, it is a shopping list: milk, eggs, bread.\n'.repeat(20));

export async function gifImage(): Promise<Buffer> {
  return sharp({ create: { width: 300, height: 300, channels: 3, background: '#888' } })
    .gif()
    .toBuffer();
}

/** Bytes that start like a JPEG and go on for `bytes` bytes. */
export function oversizeJpegLike(bytes: number): Buffer {
  const data = randomBytes(bytes);
  data[0] = 0xff;
  data[1] = 0xd8;
  data[2] = 0xff;
  return data;
}

export function dataUrl(bytes: Buffer, type = 'image/jpeg'): string {
  return `data:${type};base64,${bytes.toString('base64')}`;
}

/** A multipart form the way `curl -F` builds one: files in `image` (repeatable) and text fields beside them. */
export function imageForm(
  files: Array<{ data: Buffer; name?: string; type?: string }>,
  fields: Record<string, string> = {},
  fileField = 'image',
): FormData {
  const form = new FormData();
  for (const [index, file] of files.entries()) {
    form.append(
      fileField,
      new Blob([new Uint8Array(file.data)], { type: file.type ?? 'image/jpeg' }),
      file.name ?? `room-${index + 1}.jpg`,
    );
  }
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  return form;
}

/** Files in the server's image storage (what a failed request must not leave behind). */
export function storedFiles(server: TestServer): string[] {
  try {
    return readdirSync(path.join(server.services.config.dataDir, 'images'));
  } catch {
    return [];
  }
}

/** Image URLs point at PUBLIC_BASE_URL; in tests that is not where the server listens, so keep only the path. */
export function onServer(imageUrl: string): string {
  return new URL(imageUrl).pathname;
}

export async function fetchImage(server: TestServer, imageUrl: string) {
  const response = await fetch(new URL(onServer(imageUrl), server.url));
  const bytes = Buffer.from(await response.arrayBuffer());
  return { response, bytes, metadata: response.ok ? await sharp(bytes).metadata() : undefined };
}
