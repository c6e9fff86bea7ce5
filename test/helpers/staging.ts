import type { ApiClient } from '../fixtures/api-client.js';
import { signUpWithKey } from '../fixtures/api-client.js';
import { startTestServer, type TestServer, type TestServerOptions, useTestServer } from './server.js';
import type { TestDialect } from './databases.js';

/** Image tests fire many requests per key; the per-key and per-process limits are tested elsewhere. */
export const GENEROUS_LIMITS = {
  RATE_LIMIT_PER_MINUTE: '100000',
  RATE_LIMIT_CONCURRENT: '100',
  IMAGE_WORK_PER_PROCESS: '100',
};

export function startImagingServer(dialect: TestDialect, options: TestServerOptions = {}) {
  return startTestServer(dialect, { ...options, env: { ...GENEROUS_LIMITS, ...options.env } });
}

/** useTestServer with GENEROUS_LIMITS: one imaging server for the surrounding describe. */
export function useImagingServer(
  dialect: TestDialect,
  options: TestServerOptions | (() => TestServerOptions | Promise<TestServerOptions>) = {},
): TestServer {
  return useTestServer(dialect, async () => {
    const resolved = typeof options === 'function' ? await options() : options;
    return { ...resolved, env: { ...GENEROUS_LIMITS, ...resolved.env } };
  });
}

export async function creditsOf(api: ApiClient, key: string): Promise<number> {
  const response = await api.get('/api/v1/credits', { token: key });
  if (response.status !== 200) throw new Error(`credits: ${response.status} ${response.text}`);
  return response.body.credits as number;
}

export { signUpWithKey };
