import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDatabase } from '../helpers/each-database.js';
import { roomJpeg, storedFiles } from '../fixtures/images.js';
import type { TestServer } from '../helpers/server.js';
import { creditsOf, signUpWithKey, startImagingServer } from '../helpers/staging.js';

const notRoom = (name: string) => readFileSync(`test/fixtures/not-rooms/${name}`).toString('base64');

/** A picture that is not a room photo is refused before any charge by the operations that draw into a room. */
describeEachDatabase('Pictures that are not rooms', (dialect) => {
  let server: TestServer & { dropDatabase(): Promise<void> };
  let room: string;
  beforeAll(async () => {
    server = await startImagingServer(dialect);
    room = (await roomJpeg(640, 480)).toString('base64');
  });
  afterAll(async () => {
    await server?.close();
    await server?.dropDatabase();
  });

  it('refuses to stage a close-up of gravel with 422 not_a_room, charging and storing nothing', async () => {
    const account = await signUpWithKey(server.api);
    const before = storedFiles(server);
    for (const headers of [{}, { Prefer: 'respond-async' }] as Array<Record<string, string>>) {
      const response = await server.api.post('/api/v1/stage', {
        token: account.key,
        json: { image: notRoom('gravel.jpg'), room_type: 'living_room' },
        headers,
      });
      expect(response.status, response.text).toBe(422);
      expect(response.body).toMatchObject({ code: 'not_a_room', error: 'not a room' });
      expect(response.body.message).toMatch(/does not look like a photo of a room.*Nothing was charged/);
    }
    expect(await creditsOf(server.api, account.key)).toBe(10);
    expect(storedFiles(server)).toEqual(before);
  });

  it('names which of several images is not a room and stages none of them', async () => {
    const account = await signUpWithKey(server.api);
    const response = await server.api.post('/api/v1/stage', {
      token: account.key,
      json: { images: [room, notRoom('coffee.jpg')] },
    });
    expect(response.status, response.text).toBe(422);
    expect(response.body).toMatchObject({ code: 'not_a_room', image_index: 1 });
    expect(response.body.message).toMatch(/^Image 2 /);
    expect(await creditsOf(server.api, account.key)).toBe(10);
  });

  it('refuses to place products on a cat', async () => {
    const account = await signUpWithKey(server.api);
    const response = await server.api.post('/api/v1/place-products', {
      token: account.key,
      json: { image: notRoom('chelsea.jpg') },
    });
    expect(response.status, response.text).toBe(422);
    expect(response.body).toMatchObject({ code: 'not_a_room' });
  });

  it('still enhances any photo (upscaling suits a cup of coffee as well as a room) and still stages a room', async () => {
    const account = await signUpWithKey(server.api);
    const enhanced = await server.api.post('/api/v1/enhance', {
      token: account.key,
      json: { image: notRoom('coffee.jpg') },
    });
    expect(enhanced.status, enhanced.text).toBe(200);
    const staged = await server.api.post('/api/v1/stage', { token: account.key, json: { image: room } });
    expect(staged.status, staged.text).toBe(200);
    expect(await creditsOf(server.api, account.key)).toBe(8);
  });
});
