import type { KyselyPlugin } from 'kysely';
import { afterEach, beforeAll, expect, it } from 'vitest';
import type { Db } from '../../db/client.js';
import { inTransaction } from '../../db/transaction.js';
import { changeCredits } from '../../server/domain/credits/ledger.js';
import {
  countOutstandingHolds,
  finalizeHold,
  placeHold,
  releaseHold,
  sweepDeadHolds,
} from '../../server/domain/credits/holds.js';
import type { ImageEngine } from '../../server/imaging/engine.js';
import { beginIdempotentRequest, requestFingerprint } from '../../server/domain/idempotency/requests.js';
import { describeEachDatabase } from '../helpers/each-database.js';
import { expectBooksAgree, readBooks } from '../helpers/holds.js';
import { imageForm, roomJpeg, storedFiles } from '../fixtures/images.js';
import { creditsOf, signUpWithKey, useImagingServer } from '../helpers/staging.js';
import { engineWith as overriding } from '../helpers/slow-engine.js';

const HOLD_TIMEOUT_MS = 1_000;

/** Fails every statement that removes a charge hold: a refund that cannot be written (the database went away). */
const failingHoldRemoval: KyselyPlugin = {
  transformQuery({ node }) {
    if (node.kind === 'DeleteQueryNode' && JSON.stringify(node.from).includes('"charge_holds"'))
      throw new Error('connection lost');
    return node;
  },
  transformResult: async ({ result }) => result,
};

describeEachDatabase('Charges as holds: final with the stored result, refunded once otherwise', (dialect) => {
  const server = useImagingServer(dialect, { env: { CHARGE_HOLD_TIMEOUT: `${HOLD_TIMEOUT_MS}ms` } });
  let photo: Buffer;
  let realEngine: ImageEngine;
  let realDb: Db;
  beforeAll(async () => {
    photo = await roomJpeg(400, 300);
    realEngine = server.services.engine;
    realDb = server.services.db;
  });
  afterEach(() => {
    server.services.engine = realEngine;
    server.services.db = realDb;
  });

  const db = () => realDb;
  const holdsOf = (accountId: string) =>
    db().selectFrom('charge_holds').selectAll().where('account_id', '=', accountId).execute();
  const reasonsOf = async (accountId: string) =>
    (
      await db()
        .selectFrom('credit_ledger')
        .select(['delta', 'reason'])
        .where('account_id', '=', accountId)
        .orderBy('id')
        .execute()
    ).map((row) => `${row.reason} ${row.delta}`);
  const stage = (key: string, headers: Record<string, string> = {}) =>
    server.api.post('/api/v1/stage', { token: key, body: imageForm([{ data: photo }]), headers });
  const enhanceJson = (key: string, idempotencyKey: string) =>
    server.api.post('/api/v1/enhance', {
      token: key,
      json: { image: photo.toString('base64') },
      headers: { 'Idempotency-Key': idempotencyKey },
    });
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  /** The real engine with some methods replaced for one test. */
  const engineWith = (overrides: Partial<ImageEngine>) => overriding(realEngine, overrides);

  it('holds the credits while the engine works and refunds an engine failure through the hold', async () => {
    const { key, userId } = await signUpWithKey(server.api);
    let heldWhileWorking: Awaited<ReturnType<typeof holdsOf>> = [];
    server.services.engine = engineWith({
      stage: async () => {
        heldWhileWorking = await holdsOf(userId);
        throw new Error('GPU fell over');
      },
    });
    const response = await stage(key);
    expect(response.status).toBe(500);
    expect(heldWhileWorking).toEqual([
      expect.objectContaining({
        credits: 1,
        reason: 'stage',
        account_id: userId,
        idempotency_key: null,
        idempotency_started_at: null,
      }),
    ]);
    expect(heldWhileWorking[0]!.lease_expires_at).toBeGreaterThan(server.clock.now());
    expect(await holdsOf(userId)).toEqual([]);
    expect(await reasonsOf(userId)).toEqual(['signup_bonus 10', 'stage -1', 'refund 1']);
    expect(await creditsOf(server.api, key)).toBe(10);
    expectBooksAgree(await readBooks(db(), userId));
  });

  it('keeps a request that outlasts CHARGE_HOLD_TIMEOUT alive and charges it once when its image is stored', async () => {
    const { key, userId } = await signUpWithKey(server.api);
    server.services.engine = engineWith({
      enhance: async (input) => {
        await sleep(HOLD_TIMEOUT_MS * 2.5);
        return realEngine.enhance(input);
      },
    });
    const response = await enhanceJson(key, 'slow-but-alive');
    expect(response.status).toBe(200);
    expect(response.body.credits_remaining).toBe(9);
    expect(await reasonsOf(userId)).toEqual(['signup_bonus 10', 'enhance -1']);
    expect(await holdsOf(userId)).toEqual([]);
    expectBooksAgree(await readBooks(db(), userId));
  });

  it('refunds the hold of a request that died once its lease has run out, and frees its Idempotency-Key for a retry', async () => {
    const { key, keyId, userId } = await signUpWithKey(server.api);
    // What a process killed mid-request leaves behind: the Idempotency-Key in progress, the debit and its hold.
    const now = server.clock.now();
    const fingerprint = requestFingerprint('staging.enhance', { image: photo.toString('base64') });
    expect(await beginIdempotentRequest(db(), { keyId, idempotencyKey: 'died-mid-request', fingerprint, now })).toEqual(
      { kind: 'first' },
    );
    const placed = await inTransaction(db(), (trx) =>
      placeHold(trx, {
        accountId: userId,
        keyId,
        credits: 1,
        reason: 'enhance',
        reference: 'img_dead',
        idempotency: { key: 'died-mid-request', startedAt: now },
        now,
        timeoutMs: HOLD_TIMEOUT_MS,
      }),
    );
    expect(placed.ok).toBe(true);
    const early = await enhanceJson(key, 'died-mid-request');
    expect(early.status).toBe(409);
    expect(early.body.message).toMatch(/still being processed/);
    expect(await creditsOf(server.api, key)).toBe(9);

    // The server's own sweeper (a quarter of the timeout apart) refunds it; no test calls it.
    await expect.poll(() => holdsOf(userId), { timeout: HOLD_TIMEOUT_MS * 5, interval: 50 }).toEqual([]);
    expect(await creditsOf(server.api, key)).toBe(10);
    const refund = await db()
      .selectFrom('credit_ledger')
      .selectAll()
      .where('account_id', '=', userId)
      .where('reason', '=', 'refund')
      .execute();
    expect(refund).toEqual([
      expect.objectContaining({ delta: 1, reference: 'img_dead', api_key_id: keyId, balance_after: 10 }),
    ]);

    const retry = await enhanceJson(key, 'died-mid-request');
    expect(retry.status).toBe(200);
    expect(retry.headers.get('idempotent-replayed')).toBeNull();
    expect(retry.body.credits_remaining).toBe(9);
    expect((await enhanceJson(key, 'died-mid-request')).headers.get('idempotent-replayed')).toBe('true');
    expect(await reasonsOf(userId)).toEqual(['signup_bonus 10', 'enhance -1', 'refund 1', 'enhance -1']);
    expectBooksAgree(await readBooks(db(), userId));
  });

  it('never stores an image for a hold a sweeper refunded first: the request answers 503 and deletes its files', async () => {
    const { key, userId } = await signUpWithKey(server.api);
    const filesBefore = storedFiles(server).length;
    server.services.engine = engineWith({
      stage: async (input, options) => {
        const output = await realEngine.stage(input, options);
        // Another process's sweeper decides this request is dead (its lease looks long over) and refunds it.
        expect(await sweepDeadHolds(db(), { now: server.clock.now() + 60 * HOLD_TIMEOUT_MS })).toBe(1);
        return output;
      },
    });
    const response = await stage(key, { 'Idempotency-Key': 'overtaken' });
    expect(response.status).toBe(503);
    expect(response.body).toMatchObject({ code: 'service_unavailable', message: expect.stringMatching(/refunded/) });
    expect(await reasonsOf(userId)).toEqual(['signup_bonus 10', 'stage -1', 'refund 1']);
    expect(await db().selectFrom('images').select('id').where('account_id', '=', userId).execute()).toEqual([]);
    expect(await db().selectFrom('claims').select('code').where('account_id', '=', userId).execute()).toEqual([]);
    expect(storedFiles(server).length).toBe(filesBefore);
    expect(await creditsOf(server.api, key)).toBe(10);
    expectBooksAgree(await readBooks(db(), userId));

    server.services.engine = realEngine;
    const retry = await stage(key, { 'Idempotency-Key': 'overtaken' });
    expect(retry.status).toBe(200);
    expect(await creditsOf(server.api, key)).toBe(9);
  });

  it('lets exactly one of finalizing and refunding win when they race for the same holds', async () => {
    const { userId, keyId } = await signUpWithKey(server.api);
    await inTransaction(db(), (trx) =>
      changeCredits(trx, { accountId: userId, delta: 30, reason: 'purchase', now: server.clock.now() }),
    );
    const holdIds: string[] = [];
    for (let i = 0; i < 40; i++) {
      const placed = await inTransaction(db(), (trx) =>
        placeHold(trx, {
          accountId: userId,
          keyId,
          credits: 1,
          reason: 'stage',
          reference: `img_race${i}`,
          idempotency: null,
          now: server.clock.now(),
          timeoutMs: HOLD_TIMEOUT_MS,
        }),
      );
      if (!placed.ok) throw new Error('could not place hold');
      holdIds.push(placed.holdId);
    }
    const outcomes = await Promise.all(
      holdIds.map(async (holdId, i) => {
        const release = () =>
          i % 2
            ? releaseHold(db(), holdId, { now: server.clock.now() })
            : sweepDeadHolds(db(), { now: server.clock.now() + 60 * HOLD_TIMEOUT_MS }).then(() => false);
        const [finalized, released] = await Promise.allSettled([
          inTransaction(db(), (trx) => finalizeHold(trx, holdId)),
          release(),
        ]);
        return {
          finalized: finalized.status === 'fulfilled',
          released: released.status === 'fulfilled' && released.value,
        };
      }),
    );
    expect(await countOutstandingHolds(db())).toBe(0);
    const refunds = (await reasonsOf(userId)).filter((entry) => entry.startsWith('refund'));
    const finalized = outcomes.filter((o) => o.finalized).length;
    // Each hold ended exactly one way: finalized, or refunded with one refund row.
    expect(outcomes.every((o) => !(o.finalized && o.released))).toBe(true);
    expect(refunds).toHaveLength(40 - finalized);
    const books = await readBooks(db(), userId);
    expect(books.credits).toBe(books.ledgerSum);
    expect(books.credits).toBe(40 - finalized);
  });

  it('retries through the sweeper a refund that failed in the request', async () => {
    const { key, userId } = await signUpWithKey(server.api);
    server.services.engine = engineWith({ stage: async () => Promise.reject(new Error('GPU fell over')) });
    server.services.db = realDb.withPlugin(failingHoldRemoval);
    const response = await stage(key);
    server.services.db = realDb;
    expect(response.status).toBe(500);
    // The refund could not be written: the hold stays, no longer renewed, until the sweeper takes it.
    const [left] = await holdsOf(userId);
    expect(left).toMatchObject({ credits: 1, reason: 'stage' });
    expect(await creditsOf(server.api, key)).toBe(9);
    expectBooksAgree(await readBooks(db(), userId));
    await expect.poll(() => holdsOf(userId), { timeout: HOLD_TIMEOUT_MS * 5, interval: 50 }).toEqual([]);
    expect(await reasonsOf(userId)).toEqual(['signup_bonus 10', 'stage -1', 'refund 1']);
    expect(await creditsOf(server.api, key)).toBe(10);
    expectBooksAgree(await readBooks(db(), userId));
  });

  it("frees only the dead request's own Idempotency-Key record, never that of a retry already running", async () => {
    const { key, userId } = await signUpWithKey(server.api);
    server.services.engine = engineWith({ stage: async () => Promise.reject(new Error('GPU fell over')) });
    server.services.db = realDb.withPlugin(failingHoldRemoval);
    const failed = await stage(key, { 'Idempotency-Key': 'listing-9' });
    server.services.db = realDb;
    expect(failed.status).toBe(500);
    const [deadHold] = await holdsOf(userId);
    expect(deadHold).toBeDefined();

    // The client retries at once (the failed request freed its key); the retry is still working when the sweeper
    // refunds the first request's hold.
    let sweptWhileRetrying = false;
    server.services.engine = engineWith({
      stage: async (input, options) => {
        await expect
          .poll(() => db().selectFrom('charge_holds').select('id').where('id', '=', deadHold!.id).execute(), {
            timeout: HOLD_TIMEOUT_MS * 5,
            interval: 50,
          })
          .toEqual([]);
        const third = await stage(key, { 'Idempotency-Key': 'listing-9' });
        sweptWhileRetrying = third.status === 409 && /still being processed/.test(third.body.message);
        return realEngine.stage(input, options);
      },
    });
    const retry = await stage(key, { 'Idempotency-Key': 'listing-9' });
    expect(retry.status).toBe(200);
    expect(sweptWhileRetrying).toBe(true);
    expect((await stage(key, { 'Idempotency-Key': 'listing-9' })).headers.get('idempotent-replayed')).toBe('true');
    expect(await reasonsOf(userId)).toEqual(['signup_bonus 10', 'stage -1', 'stage -1', 'refund 1']);
    expect(await creditsOf(server.api, key)).toBe(9);
    expectBooksAgree(await readBooks(db(), userId));
  });

  it('keeps balance, ledger, holds and images in agreement at every moment under concurrent charges, failures and sweeps', async () => {
    const { key, userId } = await signUpWithKey(server.api);
    let calls = 0;
    server.services.engine = engineWith({
      stage: async (input, options) => {
        const call = ++calls;
        await sleep(20 + (call % 4) * 30);
        if (call % 3 === 0) throw new Error('GPU fell over');
        if (call % 5 === 0) await sweepDeadHolds(db(), { now: server.clock.now() + 60 * HOLD_TIMEOUT_MS });
        return realEngine.stage(input, options);
      },
    });
    let done = false;
    const snapshots: Array<Awaited<ReturnType<typeof readBooks>>> = [];
    const watcher = (async () => {
      while (!done) {
        snapshots.push(await readBooks(db(), userId));
        await sleep(5);
      }
    })();
    const responses = await Promise.all(Array.from({ length: 12 }, () => stage(key)));
    done = true;
    await watcher;
    expect(snapshots.length).toBeGreaterThan(3);
    for (const books of snapshots) expectBooksAgree(books);
    const final = await readBooks(db(), userId);
    expectBooksAgree(final);
    expect(final.holds).toBe(0);
    const stored = responses.filter((r) => r.status === 200).length;
    expect(final.paidImages).toBe(stored);
    expect(final.credits).toBe(10 - stored);
    expect(responses.every((r) => [200, 402, 500, 503].includes(r.status))).toBe(true);
  });
});
