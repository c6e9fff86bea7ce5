import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect, expectTypeOf, it } from 'vitest';
import { contractError, createRoomstageTrpcClient, stageWithApiKey } from '../../clients/trpc/example.js';
import { TEST_PASSWORD, uniqueEmail } from '../fixtures/api-client.js';
import { describeOnSqlite } from '../helpers/each-database.js';
import { roomJpeg } from '../fixtures/images.js';
import { useImagingServer } from '../helpers/staging.js';

/** Why MySQL adds nothing here (docs/contributors/tests.md, which files run on both databases). */
const SQLITE_ONLY = 'the client; each call is tested on both databases by its endpoint';

describeOnSqlite('The documented tRPC client example', SQLITE_ONLY, (dialect) => {
  const server = useImagingServer(dialect);

  it('runs the spec’s typical flow with an identity token and an API key over batched /trpc requests', async () => {
    const company = await createRoomstageTrpcClient(server.url).auth.signup.mutate({
      email: uniqueEmail('company'),
      password: TEST_PASSWORD,
    });
    const created = await createRoomstageTrpcClient(server.url, company.token).keys.create.mutate({ name: 'tRPC' });
    expect(created.bonus_credits_granted).toBe(10);

    const staged = await stageWithApiKey(server.url, created.key, await roomJpeg(640, 480));
    expect(staged).toEqual({
      claimCode: expect.stringMatching(/^RS-/),
      imageUrl: expect.stringMatching(/^http/),
      credits: 9,
    });

    const agentSession = await createRoomstageTrpcClient(server.url).auth.signup.mutate({
      email: uniqueEmail('agent'),
      password: TEST_PASSWORD,
    });
    const agent = createRoomstageTrpcClient(server.url, agentSession.token);
    // Two calls in one tick travel together through httpBatchLink.
    const [preview, me] = await Promise.all([
      agent.claims.preview.mutate({ code: staged.claimCode }),
      agent.auth.me.query(),
    ]);
    expect(preview).toMatchObject({ valid: true, status: 'unredeemed', image_count: 1 });
    expect(me.email).toBe(agentSession.user.email);
    const redeemed = await agent.claims.redeem.mutate({ code: staged.claimCode });
    expectTypeOf(redeemed.status).toEqualTypeOf<'redeemed'>();
    expect(redeemed).toMatchObject({ claim_code: staged.claimCode, status: 'redeemed', image_count: 1 });

    const again = await agent.claims.redeem.mutate({ code: staged.claimCode }).catch((error: unknown) => error);
    expect(contractError(again)).toMatchObject({ code: 'claim_already_redeemed', error: 'claim already redeemed' });
    // A key is not an identity token, and the other way round: 401 as on REST.
    const wrongKind = await createRoomstageTrpcClient(server.url, created.key)
      .claims.redeem.mutate({ code: staged.claimCode })
      .catch((error: unknown) => error);
    expect(contractError(wrongKind)).toMatchObject({ code: 'authentication_required' });
  });

  it('runs as the command the README shows', async () => {
    const company = await createRoomstageTrpcClient(server.url).auth.signup.mutate({
      email: uniqueEmail(),
      password: TEST_PASSWORD,
    });
    const { key } = await createRoomstageTrpcClient(server.url, company.token).keys.create.mutate({});
    const dir = mkdtempSync(path.join(tmpdir(), 'roomstage-trpc-'));
    try {
      writeFileSync(path.join(dir, 'room.jpg'), await roomJpeg(500, 400));
      const run = (apiKey: string) =>
        promisify(execFile)(
          'node_modules/.bin/tsx',
          ['clients/trpc/example.ts', server.url, apiKey, path.join(dir, 'room.jpg')],
          { timeout: 60_000 },
        ).catch((e) => e);
      const ok = await run(key);
      expect(ok.stdout).toMatch(/claimCode: 'RS-.*credits: 9/s);
      const refused = await run('sk_live_000000000000000000000000000000ab');
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain('authentication_required:');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
