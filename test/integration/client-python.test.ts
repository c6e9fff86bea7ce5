import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { browserServerEnv } from '../helpers/browser.js';
import { describeOnSqlite } from '../helpers/each-database.js';
import { fetchImage, roomJpeg } from '../fixtures/images.js';
import { useImagingServer } from '../helpers/staging.js';

const EXAMPLE = path.join(
  path.dirname(fileURLToPath(import.meta.url)),
  '..',
  '..',
  'clients',
  'python',
  'roomstage_example.py',
);
const IN_CI = process.env.CI === 'true' || process.env.CI === '1';

/** Why the Python client cannot run here, or null. Under CI a missing python3/requests fails the test instead. */
function pythonMissing(): string | null {
  const probe = spawnSync('python3', ['-c', 'import requests'], { encoding: 'utf8' });
  if (probe.error) return `python3 not found (${probe.error.message})`;
  if (probe.status !== 0) return `python3 cannot import requests: ${probe.stderr.trim().split('\n').pop()}`;
  return null;
}

/** Why MySQL adds nothing here (docs/contributors/tests.md, which files run on both databases). */
const SQLITE_ONLY = 'the client; each call is tested on both databases by its endpoint';

describeOnSqlite('The documented Python requests example', SQLITE_ONLY, (dialect) => {
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'roomstage-python-'));
    writeFileSync(path.join(dir, 'kitchen.jpg'), await roomJpeg(900, 600));
    writeFileSync(path.join(dir, 'hall.jpg'), await roomJpeg(400, 700));
  });
  // The client follows the absolute status_url of its job, so the server's public URL must be where it listens.
  const server = useImagingServer(dialect, async () => ({ env: await browserServerEnv() }));
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('runs the spec’s typical flow: stages two files by multipart, enhances one, stages one as a job and waits for it, previews and redeems, reads credits', async (context) => {
    const missing = pythonMissing();
    if (missing && !IN_CI) return context.skip(missing);
    expect(missing, 'CI must provide python3 with requests').toBeNull();

    const { stdout } = await promisify(execFile)(
      'python3',
      [EXAMPLE, server.url, path.join(dir, 'kitchen.jpg'), path.join(dir, 'hall.jpg')],
      { timeout: 60_000 },
    );
    const steps = Object.fromEntries(
      stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { step: string; body: any })
        .map(({ step, body }) => [step, body]),
    );
    expect(Object.keys(steps)).toEqual([
      'stage',
      'enhance',
      'stage_async',
      'preview',
      'redeem',
      'redeem_again',
      'credits',
    ]);
    expect(steps.stage).toMatchObject({
      success: true,
      style: 'farmhouse',
      room_type: 'bedroom',
      credits_used: 2,
      credits_remaining: 8,
    });
    expect(steps.stage.images.map((i: { width: number; height: number }) => [i.width, i.height])).toEqual([
      [900, 600],
      [400, 700],
    ]);
    expect(steps.enhance).toMatchObject({ width: 3840, height: 2560, credits_remaining: 7 });
    // The asynchronous stage: a 202 job, polled until its result, the body the synchronous call would have answered.
    expect(steps.stage_async.job).toMatchObject({
      job_id: expect.stringMatching(/^job_/),
      status: 'queued',
      status_url: `${server.url}/api/v1/jobs/${steps.stage_async.job.job_id}`,
    });
    expect(steps.stage_async.result).toMatchObject({
      success: true,
      style: 'scandinavian',
      credits_used: 1,
      images: [{ width: 900, height: 600 }],
    });
    expect((await fetchImage(server, steps.stage.image_url)).metadata).toMatchObject({ width: 900, height: 600 });
    expect(steps.preview).toMatchObject({ valid: true, code: steps.stage.claim_code, image_count: 2 });
    expect(steps.redeem).toMatchObject({ claim_code: steps.stage.claim_code, status: 'redeemed', image_count: 2 });
    expect(steps.redeem_again).toEqual({ status: 409, code: 'claim_already_redeemed' });
    expect(steps.credits).toMatchObject({ credits: 6, total_used: 4, total_purchased: 0 });
  });
});
