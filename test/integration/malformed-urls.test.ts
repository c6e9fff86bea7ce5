import { expect, it } from 'vitest';
import { describeOnSqlite } from '../helpers/each-database.js';
import { useTestServer } from '../helpers/server.js';

// Paths whose percent-encoding does not decode, on the dashboard, the REST API, tRPC and image files.
const MALFORMED = [
  '/images/%E0%A4%A',
  '/keys/%ff',
  '/api/v1/jobs/%E0%A4%A',
  '/api/v1/billing/checkout/%ff',
  '/api/v1/claims/%ff/redeem',
  '/trpc/keys.list%ff',
  '/docs/%ff',
  '/%',
];

/** Why MySQL adds nothing here (docs/contributors/tests.md, which files run on both databases). */
const SQLITE_ONLY = 'broken URLs are refused before any query';

describeOnSqlite('A URL whose percent-encoding is broken', SQLITE_ONLY, (dialect) => {
  const server = useTestServer(dialect);

  it.each(MALFORMED)('GET %s is a 400 JSON error with no stack', async (path) => {
    const response = await fetch(`${server.url}${path}`);
    const text = await response.text();
    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(JSON.parse(text)).toEqual({
      error: 'invalid request',
      code: 'invalid_request',
      message: 'The URL path has an invalid percent-encoding.',
    });
    expect(text).not.toMatch(/URIError|at \S+ \(|\/work\/|node_modules/);
  });

  it('changes nothing: a POST to a malformed path is refused before any procedure runs', async () => {
    const response = await fetch(`${server.url}/api/v1/keys/%ff/revoke`, { method: 'POST' });
    expect(response.status).toBe(400);
  });
});
