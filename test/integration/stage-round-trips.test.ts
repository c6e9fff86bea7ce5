import { expect, it } from 'vitest';
import { signUpWithKey } from '../fixtures/api-client.js';
import { describeEachDatabase } from '../helpers/each-database.js';
import { imageForm, roomJpeg } from '../fixtures/images.js';
import { useTestServer } from '../helpers/server.js';

/** The statements of one synchronous stage request, from the server's query log (issue: one key check per request). */
describeEachDatabase('Database round trips of one stage request', (dialect) => {
  const statements: string[] = [];
  let recording = false;
  // No inline worker: its polls would land in the log between the request's statements.
  const server = useTestServer(dialect, () => ({
    env: { BACKGROUND_WORK: 'off' },
    onQuery: (sql) => recording && statements.push(sql),
  }));

  it('looks the API key up once and stays within its statement budget', async () => {
    const { key } = await signUpWithKey(server.api);
    const photo = await roomJpeg(400, 300);
    // The first request of a key warms the process's key-id cache; the second is the steady state measured.
    expect((await server.api.post('/api/v1/stage', { token: key, body: imageForm([{ data: photo }]) })).status).toBe(
      200,
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
    recording = true;
    const response = await server.api.post('/api/v1/stage', { token: key, body: imageForm([{ data: photo }]) });
    await new Promise((resolve) => setTimeout(resolve, 200));
    recording = false;
    expect(response.status).toBe(200);
    const keyLookups = statements.filter((sql) => /from [`"]?api_keys[`"]? .*key_hash/i.test(sql));
    console.log(
      `[round trips] ${dialect}: ${statements.length} statements for one stage request, ${keyLookups.length} key lookup(s)`,
    );
    if (process.env.SHOW_STATEMENTS) console.log(statements.map((s) => s.slice(0, 90)).join('\n'));
    expect(keyLookups).toHaveLength(1);
    expect(statements.length).toBeLessThanOrEqual(30);
  });
});
