import { createTRPCClient, httpLink, TRPCClientError } from '@trpc/client';
import { expect, it } from 'vitest';
import type { AppRouter } from '../../server/root.js';
import { TEST_PASSWORD, uniqueEmail } from '../fixtures/api-client.js';
import { describeEachDatabase } from '../helpers/each-database.js';
import { startTestServer, useTestServer } from '../helpers/server.js';

describeEachDatabase('The /trpc endpoint and graceful shutdown', (dialect) => {
  const server = useTestServer(dialect);

  function client(token?: string) {
    return createTRPCClient<AppRouter>({
      links: [
        httpLink({ url: `${server.url}/trpc`, headers: () => (token ? { authorization: `Bearer ${token}` } : {}) }),
      ],
    });
  }

  it('serves the same procedures to a typed tRPC client', async () => {
    const email = uniqueEmail();
    const { token, user } = await client().auth.signup.mutate({ email, password: TEST_PASSWORD });
    expect(user.email).toBe(email);
    const created = await client(token).keys.create.mutate({ name: 'via trpc', mode: 'test' });
    expect(created.key).toMatch(/^sk_test_/);
    const { keys } = await client(token).keys.list.query();
    expect(keys.map((k) => k.name)).toEqual(['via trpc']);
  });

  it('gives tRPC clients the contract error body under data.contract', async () => {
    const error = await client()
      .auth.me.query()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TRPCClientError);
    const data = (error as TRPCClientError<AppRouter>).data as {
      httpStatus: number;
      contract: { body: { code: string } };
    };
    expect(data.httpStatus).toBe(401);
    expect(data.contract.body.code).toBe('authentication_required');
  });

  it('finishes in-flight requests before closing', async () => {
    const other = await startTestServer(dialect);
    const email = uniqueEmail();
    await other.api.post('/api/v1/auth/signup', { json: { email, password: TEST_PASSWORD } });
    // Login hashes with scrypt, so it is still running when the shutdown starts.
    const inFlight = other.api.post('/api/v1/auth/login', { json: { email, password: TEST_PASSWORD } });
    await new Promise((resolve) => setTimeout(resolve, 20));
    const closed = other.close();
    const response = await inFlight;
    await closed;
    expect(response.status).toBe(200);
    await expect(fetch(`${other.url}/api/health`)).rejects.toThrow();
    await other.dropDatabase();
  });
});
