import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DatabaseHandle, openDatabase } from '../../db/client.js';
import { countOutstandingHolds } from '../../server/domain/credits/holds.js';
import { openImageStorage } from '../../server/storage/open.js';
import { contentTypeOf } from '../../server/storage/storage.js';
import {
  ApiClient,
  type ApiResponse,
  createKey,
  type RequestOptions,
  signUp,
  signUpWithKey,
} from '../fixtures/api-client.js';
import { createTestDatabase, mysqlSkipReason, type TestDatabase } from '../helpers/databases.js';
import { expectBooksAgree, readBooks } from '../helpers/holds.js';
import { roomJpeg } from '../fixtures/images.js';
import {
  freePort,
  type ServerProcess,
  spawnServerProcess,
  spawnWorkerProcess,
  type WorkerProcess,
} from '../helpers/processes.js';
import { WebhookReceiver } from '../helpers/receiver.js';
import { S3RVER_CREDENTIALS, type LocalS3, startLocalS3 } from '../helpers/s3-server.js';
import { independentlyVerified } from '../helpers/webhooks.js';

/**
 * Production at scale in miniature: two app nodes and one webhook worker, each a process of its own, sharing one
 * MySQL database and one S3 bucket, with node A and the worker killed with SIGKILL in the middle of the traffic.
 * MySQL only: SQLite is an embedded single-process database, not an engine that several nodes share.
 */
const COMPANIES = 3;
const AGENTS = 2;
/**
 * Chains of work per company, 2 credits each and 1 more for the first (which also enhances: a 4K upscale is the
 * heaviest work, kept to one per company on a shared 2-core machine): 7 of the 10 bonus credits, so no request fails
 * for want of credits.
 */
const CHAINS_PER_COMPANY = 3;
const HOLD_TIMEOUT = '6s';
/** Node A's engine waits this long per stage and enhance, so image requests are holding credits when it dies. */
const NODE_A_ENGINE_DELAY_MS = 1500;
/** The address of the load balancer in front of both nodes: every image_url starts with it. */
const PUBLIC_BASE_URL = 'http://roomstage-lb.test';

type NodeName = 'A' | 'B';
interface Outcome {
  node: NodeName;
  method: string;
  path: string;
  /** The node died before answering (only node A can: it is the one killed). */
  died: boolean;
  response?: ApiResponse;
}

const skipReason = mysqlSkipReason();
if (skipReason) console.log(`[many-nodes] skipped: the many-nodes test needs MySQL and ${skipReason}`);
const describeOnMysql = skipReason ? describe.skip : describe;

describeOnMysql(
  `Two app nodes and a webhook worker on one MySQL and one S3 bucket (MySQL only: SQLite is not a multi-node engine)${skipReason ? ` [skipped: ${skipReason}]` : ''}`,
  () => {
    let database: TestDatabase;
    let s3: LocalS3;
    let receiver: WebhookReceiver;
    let handle: DatabaseHandle;
    let storageUrl: string;
    let workerMetricsPort: number;
    let nodeA: ServerProcess | null = null;
    let nodeB: ServerProcess | null = null;
    let worker: WorkerProcess | null = null;
    const env = (): Record<string, string> => ({
      ...S3RVER_CREDENTIALS,
      DATABASE_URL: database.url,
      STORAGE_URL: storageUrl,
      PUBLIC_BASE_URL,
      CHARGE_HOLD_TIMEOUT: HOLD_TIMEOUT,
      ALLOW_PRIVATE_NETWORK: 'true',
      // Deliveries are the separate worker's job, as when workers run apart from the app nodes.
      BACKGROUND_WORK: 'off',
      WEBHOOK_RETRY_DELAYS: '200ms,500ms,1s,2s,3s,5s',
      RATE_LIMIT_PER_MINUTE: '100000',
      RATE_LIMIT_CONCURRENT: '100',
      CLAIM_ATTEMPTS_PER_MINUTE: '100000',
      IMAGE_WORK_PER_PROCESS: '64',
      // Retention passes would only add noise here; they have their own test.
      RETENTION_INTERVAL: '1000d',
    });
    const startWorker = () => spawnWorkerProcess({ ...env(), METRICS_PORT: String(workerMetricsPort) });

    beforeAll(async () => {
      // What `npm start` and `npm run worker` run first: builds whatever is missing or stale.
      execFileSync(process.execPath, ['scripts/ensure-build.mjs'], { stdio: 'ignore' });
      database = await createTestDatabase('mysql');
      s3 = await startLocalS3();
      storageUrl = s3.storageUrl('many-nodes');
      receiver = await WebhookReceiver.start();
      workerMetricsPort = await freePort();
      // Node B is production's compiled server, node A the same server with a slow engine; all three processes start
      // at once on the empty database and migrate it together, as a rollout would.
      // Each process is recorded as soon as it runs (and all starts are awaited), so afterAll kills every one that
      // started even when another failed to.
      const started = await Promise.allSettled([
        spawnServerProcess(env(), ['dist/server/main.js']).then((p) => (nodeB = p)),
        spawnServerProcess(env(), [
          '--import',
          'tsx',
          'test/helpers/slow-engine-server.ts',
          String(NODE_A_ENGINE_DELAY_MS),
        ]).then((p) => (nodeA = p)),
        startWorker().then((p) => (worker = p)),
      ]);
      for (const result of started) if (result.status === 'rejected') throw result.reason;
      handle = openDatabase(database.url);
    }, 300_000);

    afterAll(async () => {
      // Children first, whatever happened above: no process outlives the test.
      await Promise.allSettled([nodeA?.kill(), nodeB?.kill(), worker?.kill()]);
      await Promise.allSettled([handle?.close(), receiver?.close(), s3?.close()]);
      await database?.drop();
    });

    it('keeps money, images, revocations and webhooks right when node A and the worker are killed mid-load and the worker restarts', {
      timeout: 240_000,
    }, async () => {
      const db = handle.db;
      const a = nodeA!;
      const b = nodeB!;
      const apis = { A: new ApiClient(a.url), B: new ApiClient(b.url) };
      let nodeADead = false;
      const inFlight = { A: 0, B: 0 };
      const startedB = { image: 0 };
      const finishedB = { image: 0 };
      const outcomes: Outcome[] = [];
      const isImageRequest = (path: string) => path === '/api/v1/stage' || path === '/api/v1/enhance';

      /** One request through `node` (node B once A is dead); a connection that dies is recorded, not thrown. */
      const call = async (
        preferred: NodeName,
        method: string,
        path: string,
        options: RequestOptions,
      ): Promise<Outcome> => {
        const node: NodeName = nodeADead ? 'B' : preferred;
        inFlight[node] += 1;
        if (node === 'B' && isImageRequest(path)) startedB.image += 1;
        try {
          const response = await apis[node].request(method, path, options);
          const outcome: Outcome = { node, method, path, died: false, response };
          outcomes.push(outcome);
          return outcome;
        } catch (error) {
          const outcome: Outcome = { node, method, path, died: true };
          outcomes.push(outcome);
          if (node === 'B') throw error;
          return outcome;
        } finally {
          inFlight[node] -= 1;
          if (node === 'B' && isImageRequest(path)) finishedB.image += 1;
        }
      };
      const ok = (outcome: Outcome) =>
        !outcome.died && outcome.response!.status >= 200 && outcome.response!.status < 300;

      // Accounts: staging companies (one key with a webhook, one key to revoke) and estate agents, made on both nodes.
      const companies = await Promise.all(
        Array.from({ length: COMPANIES }, async (_, i) => {
          const api = i % 2 === 0 ? apis.A : apis.B;
          const account = await signUpWithKey(api);
          const hookUrl = `${receiver.url}/key-${account.keyId}`;
          const hook = await api.put(`/api/v1/keys/${account.keyId}/webhook`, {
            token: account.token,
            json: { url: hookUrl, enabled: true },
          });
          expect(hook.status).toBe(200);
          const spare = await createKey(api, account.token, { name: 'to revoke' });
          return { ...account, hookPath: new URL(hookUrl).pathname, secret: hook.body.secret as string, spare };
        }),
      );
      const agents = await Promise.all(Array.from({ length: AGENTS }, (_, i) => signUp(i % 2 === 0 ? apis.B : apis.A)));
      const photo = (await roomJpeg(320, 240)).toString('base64');

      /**
       * Stage, stage into the same claim, (enhance into it), place products, then an agent previews and redeems it.
       * True when the claim was redeemed; a chain stops at its first failed step.
       */
      const chain = async (company: (typeof companies)[number], index: number) => {
        const node = (step: number): NodeName => ((index + step) % 2 === 0 ? 'A' : 'B');
        const auth = { token: company.key };
        const first = await call(node(0), 'POST', '/api/v1/stage', {
          ...auth,
          json: { image: photo, style: 'scandinavian', room_type: 'living_room' },
        });
        if (!ok(first)) return;
        const claimCode: string = first.response!.body.claim_code;
        if (
          !ok(await call(node(1), 'POST', '/api/v1/stage', { ...auth, json: { image: photo, claim_code: claimCode } }))
        )
          return;
        if (
          index % CHAINS_PER_COMPANY === 0 &&
          !ok(
            await call(node(2), 'POST', '/api/v1/enhance', { ...auth, json: { image: photo, claim_code: claimCode } }),
          )
        )
          return;
        const imageId: string = first.response!.body.images[0].id;
        if (
          !ok(
            await call(node(3), 'POST', '/api/v1/place-products', {
              ...auth,
              json: { image_id: imageId, claim_code: claimCode },
            }),
          )
        )
          return;
        const agent = { token: agents[index % AGENTS]!.token };
        const preview = await call(node(4), 'POST', '/api/v1/claim/preview', { ...agent, json: { code: claimCode } });
        if (!ok(preview)) return;
        expect(preview.response!.body).toMatchObject({ valid: true, is_claimed: false });
        return ok(await call(node(5), 'POST', '/api/v1/claim', { ...agent, json: { code: claimCode } }));
      };

      /** A key revoked through node A is refused by node B at its very next request, and by A. */
      const revocations = companies.map(async (company) => {
        const spareAuth = { token: company.spare.key };
        expect((await apis.B.get('/api/v1/credits', spareAuth)).status).toBe(200);
        const revoked = await apis.A.delete(`/api/v1/keys/${company.spare.id}`, { token: company.token });
        expect(revoked.status).toBe(200);
        expect(revoked.body.status).toBe('revoked');
        const onB = await apis.B.get('/api/v1/credits', spareAuth);
        const onA = await apis.A.get('/api/v1/credits', spareAuth);
        return { onB: onB.status, onA: onA.status };
      });

      const load = Promise.all(
        companies.flatMap((company, c) =>
          Array.from({ length: CHAINS_PER_COMPANY }, (_, j) => chain(company, c * CHAINS_PER_COMPANY + j)),
        ),
      );
      const revoked = await Promise.all(revocations);
      expect(revoked).toEqual(companies.map(() => ({ onB: 401, onA: 401 })));

      // The worker dies with deliveries in flight: from here the receiver holds them unanswered.
      receiver.mode = { kind: 'hang' };
      const hangingFrom = receiver.requests.length;
      await receiver.waitFor((requests) => requests.length > hangingFrom, 10_000).catch(() => undefined);
      // Mid-load: wait until node A has served images and has image requests in flight, at least one of the held
      // credits being one of theirs (more holds than node B's image requests could account for). Nothing is awaited
      // between seeing those holds and the kill, so node A dies holding them: waiting for a hanging delivery there let
      // its requests finish first, and once left no hold to refund.
      const deadline = Date.now() + 60_000;
      for (;;) {
        if (Date.now() > deadline)
          throw new Error(
            `node A never had held image requests in flight: ${JSON.stringify({ inFlight, done: outcomes.length })}`,
          );
        const aServedImages = outcomes.some((o) => o.node === 'A' && ok(o) && isImageRequest(o.path));
        if (aServedImages && inFlight.A >= 2 && outcomes.filter(ok).length >= 6) {
          const finishedBefore = finishedB.image;
          const holds = await countOutstandingHolds(db);
          if (holds > startedB.image - finishedBefore) break;
        }
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      nodeADead = true;
      await Promise.all([a.kill(), worker!.kill()]);
      const unansweredAtKill = receiver.requests.slice(hangingFrom).filter((r) => r.answeredWith === null).length;
      receiver.dropHanging();
      receiver.mode = { kind: 'ok' };

      // While no worker runs, one whole chain on the survivor records a staging and a redemption: their events must
      // wait in the outbox for the restarted worker. (Whether a chain of the load got as far as its redemption before
      // the kill depends on timing: once none did, and no claim.redeemed event was there to check.)
      expect(await chain(companies[0]!, COMPANIES * CHAINS_PER_COMPANY)).toBe(true);

      // Node B keeps serving; the worker comes back and must deliver what was leased by the dead one and since.
      worker = await startWorker();
      await load;
      expect(outcomes.filter((o) => o.died).length).toBeGreaterThan(0);
      // Every request either succeeded or went to node A and died with it.
      expect(
        outcomes
          .filter((o) => !ok(o) && !(o.died && o.node === 'A'))
          .map((o) => `${o.node} ${o.path} ${o.response?.status} ${o.response?.text}`),
      ).toEqual([]);

      // After CHARGE_HOLD_TIMEOUT the sweepers (node B and the worker) have refunded the dead requests' holds.
      await expect.poll(() => countOutstandingHolds(db), { timeout: 30_000, interval: 200 }).toBe(0);
      const refunds = await db
        .selectFrom('credit_ledger')
        .select(['reference', 'delta'])
        .where('reason', '=', 'refund')
        .execute();
      expect(refunds.length).toBeGreaterThan(0);

      // Money: credits = Σ ledger and never negative, for every account; every credit charged and not refunded is a
      // stored image (no charge without a result).
      const accounts = await db.selectFrom('accounts').select('id').execute();
      expect(accounts.length).toBe(COMPANIES + AGENTS);
      for (const { id } of accounts) {
        const books = await readBooks(db, id);
        expect(books.credits).toBeGreaterThanOrEqual(0);
        expectBooksAgree(books);
        expect(books.holds).toBe(0);
      }
      const ledger = await db.selectFrom('credit_ledger').select(['reason', 'reference', 'delta']).execute();
      const refunded = new Set(refunds.map((row) => row.reference));
      const kept = ledger.filter(
        (row) => (row.reason === 'stage' || row.reason === 'enhance') && !refunded.has(row.reference),
      );
      expect(kept.length).toBeGreaterThan(0);
      const images = await db.selectFrom('images').select(['id', 'storage_name', 'content_type']).execute();
      const imageIds = new Set(images.map((image) => image.id));
      expect(kept.filter((row) => !imageIds.has(row.reference!))).toEqual([]);
      const storage = openImageStorage(storageUrl, PUBLIC_BASE_URL);
      for (const image of images) expect(await storage.get(image.storage_name), image.storage_name).not.toBeNull();

      // Every image URL any node handed out is served by the survivor, from S3, with its content type.
      const urls = new Set<string>();
      const urlsFromA = new Set<string>();
      for (const outcome of outcomes.filter(ok)) {
        const body = outcome.response!.body;
        const found = [
          body.image_url,
          ...(body.images ?? []).map((image: { image_url: string }) => image.image_url),
        ].filter((url): url is string => typeof url === 'string');
        for (const url of found) {
          urls.add(url);
          if (outcome.node === 'A') urlsFromA.add(url);
        }
      }
      expect(urlsFromA.size).toBeGreaterThan(0);
      for (const url of urls) {
        expect(url.startsWith(`${PUBLIC_BASE_URL}/images/`)).toBe(true);
        const path = new URL(url).pathname;
        const served = await fetch(`${b.url}${path}`);
        expect(served.status, path).toBe(200);
        expect(served.headers.get('content-type')).toBe(contentTypeOf(path));
        expect((await served.arrayBuffer()).byteLength).toBeGreaterThan(0);
      }

      // Webhooks: every event in the outbox reaches the receiver at least once (it dedupes by webhook-id),
      // including those leased by the killed worker and those recorded while no worker ran.
      await expect
        .poll(
          async () =>
            (await db.selectFrom('webhook_deliveries').select('id').where('status', '!=', 'delivered').execute())
              .length,
          { timeout: 60_000, interval: 250 },
        )
        .toBe(0);
      const events = await db.selectFrom('webhook_events').select(['id', 'key_id', 'event']).execute();
      const deliveries = await db.selectFrom('webhook_deliveries').select(['event_id', 'status']).execute();
      expect(new Set(deliveries.map((d) => d.event_id))).toEqual(new Set(events.map((e) => e.id)));
      const received = new Map<string, number>();
      for (const request of receiver.accepted()) {
        const id = String(request.headers['webhook-id']);
        received.set(id, (received.get(id) ?? 0) + 1);
        const company = companies.find((c) => c.hookPath === request.path);
        expect(company && independentlyVerified(company.secret, request)).toBe(true);
      }
      expect(events.filter((event) => !received.has(event.id)).map((event) => `${event.event} ${event.id}`)).toEqual(
        [],
      );
      const kinds = new Set(events.map((event) => event.event));
      expect(kinds.has('staging.complete') && kinds.has('claim.redeemed')).toBe(true);

      console.log(
        `[many-nodes] ${outcomes.length} requests (${outcomes.filter((o) => o.died).length} died with node A), ` +
          `${refunds.length} holds refunded by the sweepers, ${images.length} images in S3, ${events.length} events, ` +
          `${unansweredAtKill} deliveries in flight when the worker died, ` +
          `${receiver.accepted().length} deliveries accepted (${receiver.accepted().length - received.size} duplicates)`,
      );

      // The restarted worker's own /metrics saw its deliveries; the shared gauges agree on both processes.
      const workerPage = await (await fetch(`http://127.0.0.1:${workerMetricsPort}/metrics`)).text();
      expect(
        Number(/^webhook_attempts_total\{outcome="delivered"\} (\d+)/m.exec(workerPage)?.[1] ?? 0),
      ).toBeGreaterThan(0);
      expect(workerPage).toMatch(/^webhook_queue_depth 0$/m);
      expect((await apis.B.get('/metrics')).text).toMatch(/^charge_holds_outstanding 0$/m);
    });
  },
);
