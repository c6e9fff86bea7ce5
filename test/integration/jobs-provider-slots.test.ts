import { emptyRoomImage } from '../../server/imaging/synthetic-room.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDatabase } from '../helpers/each-database.js';
import { FakeReplicate } from '../fixtures/fake-replicate.js';
import { expectBooksAgree, readBooks } from '../helpers/holds.js';
import { creditsOf, signUpWithKey, useImagingServer } from '../helpers/staging.js';

/**
 * Jobs against a remote engine: a job whose image is at the provider does not take one of the JOBS_PER_PROCESS
 * places, so the provider's ENGINE_CONCURRENCY slots stay busy while other jobs are prepared and finished here.
 */
describeEachDatabase('Asynchronous jobs on a remote engine', (dialect) => {
  const PROVIDER_SLOTS = 3;
  const JOBS = 6;
  let fake: FakeReplicate;
  beforeAll(async () => {
    fake = await new FakeReplicate().start();
  });
  const server = useImagingServer(dialect, () => ({
    env: { ...fake.env(), ENGINE_CONCURRENCY: String(PROVIDER_SLOTS), JOBS_PER_PROCESS: '1' },
  }));
  afterAll(async () => {
    await fake?.stop();
  });

  // The wait stays longer than the poll's, so that a failure names the jobs' errors instead of only timing out.
  it('keeps every provider slot busy with one job place, and finishes each job once', { timeout: 60_000 }, async () => {
    const account = await signUpWithKey(server.api);
    // A drawn room, the same every run (a random-noise photo could fail the fidelity check now and then).
    const photo = (await emptyRoomImage(640, 400)).toString('base64');
    fake.delayMs = 600;
    const accepted = await Promise.all(
      Array.from({ length: JOBS }, (_, index) =>
        server.api.post('/api/v1/stage', {
          token: account.key,
          json: { image: photo, seed: index },
          headers: { Prefer: 'respond-async' },
        }),
      ),
    );
    for (const response of accepted) expect(response.status, response.text).toBe(202);

    const statuses = () =>
      Promise.all(
        accepted.map(
          async (response) =>
            (await server.api.get(`/api/v1/jobs/${response.body.job_id}`, { token: account.key })).body.status,
        ),
      );
    try {
      await expect.poll(statuses, { timeout: 30_000, interval: 100 }).toEqual(Array(JOBS).fill('succeeded'));
    } catch (error) {
      const jobs = await Promise.all(
        accepted.map(async (response) => {
          const job = await server.api.get(`/api/v1/jobs/${response.body.job_id}`, { token: account.key });
          return JSON.stringify(job.body).slice(0, 300);
        }),
      );
      throw new Error(`jobs did not all succeed:\n${jobs.join('\n')}`, { cause: error });
    }

    // One job place would have meant one picture at a time; every slot was used, and never more than the slots.
    expect(fake.peakDrawing).toBe(PROVIDER_SLOTS);
    expect(fake.predictions.size).toBe(JOBS);
    expect(await creditsOf(server.api, account.key)).toBe(10 - JOBS);
    const books = await readBooks(server.services.db, account.userId);
    expect(books.holds).toBe(0);
    expectBooksAgree(books);
  });
});
