import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { signUpWithKey } from '../helpers/api-client.js';
import { describeEachDatabase } from '../helpers/each-database.js';
import { fetchImage, roomJpeg } from '../helpers/images.js';
import { creditsOf, startImagingServer } from '../helpers/staging.js';

const CLIENT = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'helpers', 'python_stage_client.py');
const IN_CI = process.env.CI === 'true' || process.env.CI === '1';

/** Why the Python client cannot run here, or null. Under CI a missing python3/requests fails the test instead. */
function pythonMissing(): string | null {
  const probe = spawnSync('python3', ['-c', 'import requests'], { encoding: 'utf8' });
  if (probe.error) return `python3 not found (${probe.error.message})`;
  if (probe.status !== 0) return `python3 cannot import requests: ${probe.stderr.trim().split('\n').pop()}`;
  return null;
}

describeEachDatabase('A Python requests client uploading multipart forms', (dialect) => {
  let server: Awaited<ReturnType<typeof startImagingServer>>;
  let dir: string;
  beforeAll(async () => {
    server = await startImagingServer(dialect);
    dir = mkdtempSync(path.join(tmpdir(), 'roomstage-python-'));
    writeFileSync(path.join(dir, 'kitchen.jpg'), await roomJpeg(900, 600));
    writeFileSync(path.join(dir, 'hall.jpg'), await roomJpeg(400, 700));
  });
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
    await server?.close();
    await server?.dropDatabase();
  });

  it('stages two files sent with requests.post(files=…, data=…) and enhances one', async (context) => {
    const missing = pythonMissing();
    if (missing && !IN_CI) return context.skip(missing);
    expect(missing, 'CI must provide python3 with requests').toBeNull();

    const { key } = await signUpWithKey(server.api);
    const { stdout } = await promisify(execFile)('python3', [CLIENT, server.url, key, 'farmhouse', path.join(dir, 'kitchen.jpg'), path.join(dir, 'hall.jpg')], { timeout: 60_000 });
    const { stage, enhance } = JSON.parse(stdout);
    expect(stage.status).toBe(200);
    expect(stage.body).toMatchObject({ success: true, style: 'farmhouse', room_type: 'bedroom', credits_used: 2, credits_remaining: 8 });
    expect(stage.body.images.map((i: { width: number; height: number }) => [i.width, i.height])).toEqual([
      [900, 600],
      [400, 700],
    ]);
    expect(enhance.status).toBe(200);
    expect(enhance.body).toMatchObject({ width: 3840, height: 2560, credits_remaining: 7 });
    expect((await fetchImage(server, stage.body.image_url)).metadata).toMatchObject({ width: 900, height: 600 });
    expect(await creditsOf(server.api, key)).toBe(7);
  });
});
