import { utimesSync } from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { startRetentionJob } from '../../server/retention/job.js';
import { purgeExpired, type RetentionPolicy } from '../../server/retention/purge.js';
import { newImageName } from '../../server/storage/storage.js';
import { newId } from '../../server/ids.js';
import { signUp, signUpWithKey } from '../fixtures/api-client.js';
import { describeEachDatabase } from '../helpers/each-database.js';
import { imageForm, roomJpeg, storedFiles } from '../fixtures/images.js';
import { useImagingServer } from '../helpers/staging.js';
import { sessionIdHash } from '../../server/auth/lucia-adapter.js';

const DAY = 86_400_000;
const POLICY: RetentionPolicy = {
  webhookEventsMs: 30 * DAY,
  jobsMs: 30 * DAY,
  orphanFileGraceMs: 3_600_000,
  auditMs: 365 * DAY,
};

describeEachDatabase('Retention', (dialect) => {
  const server = useImagingServer(dialect, { env: { BACKGROUND_WORK: 'off' } });

  const purge = () => purgeExpired(server.services.db, server.services.storage, POLICY, server.clock.now());

  it('purges Idempotency-Key records past their 24 hours and keeps younger ones', async () => {
    const { db } = server.services;
    const now = server.clock.now();
    await db
      .insertInto('idempotency_keys')
      .values([
        {
          key_id: 1,
          idempotency_key: 'old',
          fingerprint: 'f'.repeat(64),
          status: 'completed',
          response_body: '{}',
          created_at: now - DAY - 1,
        },
        {
          key_id: 1,
          idempotency_key: 'young',
          fingerprint: 'f'.repeat(64),
          status: 'completed',
          response_body: '{}',
          created_at: now - DAY + 60_000,
        },
      ])
      .execute();
    expect((await purge()).idempotencyKeys).toBe(1);
    expect(
      (await db.selectFrom('idempotency_keys').select('idempotency_key').where('key_id', '=', 1).execute()).map(
        (r) => r.idempotency_key,
      ),
    ).toEqual(['young']);
  });

  it('purges expired sessions, and a live session keeps working', async () => {
    const { db } = server.services;
    const stale = await signUp(server.api);
    const live = await signUp(server.api);
    await db
      .updateTable('sessions')
      .set({ expires_at: server.clock.now() - 1 })
      .where('id', '=', sessionIdHash(stale.token))
      .execute();
    expect((await purge()).sessions).toBeGreaterThanOrEqual(1);
    expect(
      await db.selectFrom('sessions').select('id').where('id', '=', sessionIdHash(stale.token)).executeTakeFirst(),
    ).toBeUndefined();
    expect((await server.api.get('/api/v1/claims', { token: live.token })).status).toBe(200);
  });

  it('purges delivered webhook events older than the retention with their deliveries, never pending or failed ones', async () => {
    const { db } = server.services;
    const { userId, keyId } = await signUpWithKey(server.api);
    const now = server.clock.now();
    await db
      .insertInto('webhooks')
      .values({
        key_id: keyId,
        account_id: userId,
        url: 'https://hooks.example.test/x',
        enabled: 1,
        secret: 'whsec_x',
        created_at: now,
        updated_at: now,
      })
      .execute();
    const event = async (label: string, ageMs: number, statuses: Array<'delivered' | 'pending' | 'failed'>) => {
      const id = `evt_${label}_${newId('image').slice(4, 14)}`;
      await db
        .insertInto('webhook_events')
        .values({
          id,
          account_id: userId,
          key_id: keyId,
          event: 'staging.complete',
          payload: '{}',
          created_at: now - ageMs,
        })
        .execute();
      for (const [i, status] of statuses.entries()) {
        await db
          .insertInto('webhook_deliveries')
          .values({
            id: `whd_${id}_${i}`,
            event_id: id,
            key_id: keyId,
            status,
            attempts: 1,
            next_attempt_at: status === 'pending' ? now : null,
            created_at: now - ageMs,
            delivered_at: status === 'delivered' ? now - ageMs : null,
          })
          .execute();
      }
      return id;
    };
    const oldDelivered = await event('old', 31 * DAY, ['delivered']);
    const oldNoWebhook = await event('none', 31 * DAY, []);
    const oldPending = await event('pend', 31 * DAY, ['delivered', 'pending']);
    const oldFailed = await event('fail', 31 * DAY, ['failed']);
    const young = await event('young', 29 * DAY, ['delivered']);
    const report = await purge();
    expect(report).toMatchObject({ webhookEvents: 2, webhookDeliveries: 1 });
    const left = (await db.selectFrom('webhook_events').select('id').where('key_id', '=', keyId).execute())
      .map((r) => r.id)
      .sort();
    expect(left).toEqual([oldPending, oldFailed, young].sort());
    expect(left).not.toContain(oldDelivered);
    expect(left).not.toContain(oldNoWebhook);
    const deliveries = await db
      .selectFrom('webhook_deliveries')
      .select('event_id')
      .where('key_id', '=', keyId)
      .execute();
    expect(deliveries.map((d) => d.event_id).sort()).toEqual([oldPending, oldPending, oldFailed, young].sort());
  });

  it('removes stored files that no image row names once past the grace period, and keeps every served image and its original', async () => {
    const { storage } = server.services;
    const { key } = await signUpWithKey(server.api);
    const staged = await server.api.post('/api/v1/stage', {
      token: key,
      body: imageForm([{ data: await roomJpeg(400, 300) }]),
    });
    expect(staged.status).toBe(200);
    const kept = (staged.body.images[0].image_url as string).split('/').pop()!;
    const row = await server.services.db
      .selectFrom('images')
      .select('original_storage_name')
      .where('storage_name', '=', kept)
      .executeTakeFirstOrThrow();
    const original = row.original_storage_name!;
    expect(original).toMatch(/^src_/);
    const orphan = newImageName(newId('image'), 'jpg');
    const youngOrphan = newImageName(newId('image'), 'jpg');
    await storage.put(orphan, Buffer.from('left by a request that died'), 'image/jpeg');
    await storage.put(youngOrphan, Buffer.from('its row is about to commit'), 'image/jpeg');
    const twoHoursAgo = new Date(Date.now() - 2 * 3_600_000);
    const directory = path.join(server.services.config.dataDir, 'images');
    for (const name of [orphan, kept, original]) utimesSync(path.join(directory, name), twoHoursAgo, twoHoursAgo);
    expect((await purge()).orphanFiles).toBe(1);
    const files = storedFiles(server);
    expect(files).toContain(kept);
    expect(files).toContain(original);
    expect(files).toContain(youngOrphan);
    expect(files).not.toContain(orphan);
  });

  it("purges finished jobs older than JOB_RETENTION, keeps younger and unfinished ones, and never takes a queued job's inputs for orphans", async () => {
    const { db } = server.services;
    const { key, keyId, userId } = await signUpWithKey(server.api);
    // BACKGROUND_WORK=off: nothing runs jobs here, so this one stays queued with its input in storage.
    const accepted = await server.api.post('/api/v1/stage', {
      token: key,
      body: imageForm([{ data: await roomJpeg(400, 300) }]),
      headers: { Prefer: 'respond-async' },
    });
    expect(accepted.status).toBe(202);
    const inputs = (
      await db.selectFrom('job_inputs').select('storage_name').where('job_id', '=', accepted.body.job_id).execute()
    ).map((row) => row.storage_name);
    expect(inputs).toHaveLength(1);
    const twoHoursAgo = new Date(Date.now() - 2 * 3_600_000);
    for (const name of inputs)
      utimesSync(path.join(server.services.config.dataDir, 'images', name), twoHoursAgo, twoHoursAgo);

    const now = server.clock.now();
    const finishedJob = (id: string, status: 'succeeded' | 'failed', ageMs: number) => ({
      id,
      account_id: userId,
      key_id: keyId,
      operation: 'enhance' as const,
      status,
      input: '{}',
      hold_id: null,
      result: status === 'succeeded' ? '{}' : null,
      error: status === 'failed' ? '{}' : null,
      attempts: 1,
      lease_owner: null,
      lease_expires_at: null,
      created_at: now - ageMs - 1000,
      finished_at: now - ageMs,
    });
    const old = newId('job');
    const young = newId('job');
    await db
      .insertInto('jobs')
      .values([finishedJob(old, 'succeeded', 31 * DAY), finishedJob(young, 'failed', DAY)])
      .execute();

    const report = await purge();
    expect(report.jobs).toBe(1);
    const left = (await db.selectFrom('jobs').select('id').where('account_id', '=', userId).execute())
      .map((row) => row.id)
      .sort();
    expect(left).toEqual([accepted.body.job_id, young].sort());
    expect(storedFiles(server)).toEqual(expect.arrayContaining(inputs));
  });

  it('purges impression views older than their 24-hour window and finished rate-limit windows', async () => {
    const { db } = server.services;
    const now = server.clock.now();
    await db
      .insertInto('impression_views')
      .values([
        { image_id: 'img_gone', viewer: 'v'.repeat(32), counted_at: now - 86_400_001 },
        // Still inside its window: the same address would be billed again if it went.
        { image_id: 'img_kept', viewer: 'v'.repeat(32), counted_at: now - 3_600_001 },
      ])
      .execute();
    await db
      .insertInto('rate_limit_windows')
      .values({ bucket: 'claim:203.0.113.9', window_start: now - 2 * 3_600_000, hits: 3 })
      .execute();
    const report = await purge();
    expect(report.impressionViews).toBeGreaterThanOrEqual(1);
    expect(report.rateLimitWindows).toBeGreaterThanOrEqual(1);
    expect(
      await db.selectFrom('impression_views').select('image_id').where('image_id', '=', 'img_gone').executeTakeFirst(),
    ).toBeUndefined();
    expect(
      await db.selectFrom('impression_views').select('image_id').where('image_id', '=', 'img_kept').executeTakeFirst(),
    ).toBeDefined();
  });

  it('runs by itself every RETENTION_INTERVAL, and two processes purging at once do not trip over each other', async () => {
    const { db, storage } = server.services;
    const stale = await signUp(server.api);
    await db
      .updateTable('sessions')
      .set({ expires_at: server.clock.now() - 1 })
      .where('id', '=', sessionIdHash(stale.token))
      .execute();
    const jobs = [1, 2].map(() =>
      startRetentionJob({ db, storage, clock: server.clock, policy: POLICY, intervalMs: 100 }),
    );
    try {
      const deadline = Date.now() + 5_000;
      while (
        Date.now() < deadline &&
        (await db.selectFrom('sessions').select('id').where('id', '=', sessionIdHash(stale.token)).executeTakeFirst())
      ) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(
        await db.selectFrom('sessions').select('id').where('id', '=', sessionIdHash(stale.token)).executeTakeFirst(),
      ).toBeUndefined();
    } finally {
      await Promise.all(jobs.map((job) => job.stop()));
    }
  });
});
