import { beforeAll, expect, it } from 'vitest';
import { SESSION_COOKIE_NAME } from '../../server/auth/lucia.js';
import { describeOnSqlite } from '../helpers/each-database.js';
import { useTestServer } from '../helpers/server.js';

/** Every documented endpoint with the credential it takes (None, Key or Token). */
const DOCUMENTED_ENDPOINTS: [method: string, path: string, auth: 'none' | 'apiKey' | 'identityToken'][] = [
  ['get', '/api/health', 'none'],
  ['post', '/api/v1/auth/signup', 'none'],
  ['post', '/api/v1/auth/login', 'none'],
  ['post', '/api/v1/auth/logout', 'identityToken'],
  ['get', '/api/v1/me', 'identityToken'],
  ['post', '/api/v1/keys', 'identityToken'],
  ['get', '/api/v1/keys', 'identityToken'],
  ['delete', '/api/v1/keys/{id}', 'identityToken'],
  ['get', '/api/v1/credits', 'apiKey'],
  ['post', '/api/v1/stage', 'apiKey'],
  ['post', '/api/v1/enhance', 'apiKey'],
  ['post', '/api/v1/place-products', 'apiKey'],
  ['get', '/api/v1/styles', 'none'],
  ['get', '/api/v1/capabilities', 'none'],
  ['post', '/api/v1/declutter', 'apiKey'],
  ['get', '/api/v1/settings/staging', 'identityToken'],
  ['put', '/api/v1/settings/staging', 'identityToken'],
  ['post', '/api/v1/claim/preview', 'identityToken'],
  ['post', '/api/v1/claim', 'identityToken'],
  ['get', '/api/v1/claims', 'identityToken'],
  ['get', '/api/v1/images', 'identityToken'],
  ['get', '/api/v1/keys/{id}/webhook', 'identityToken'],
  ['put', '/api/v1/keys/{id}/webhook', 'identityToken'],
  ['post', '/api/v1/keys/{id}/webhook/test', 'identityToken'],
  ['post', '/api/v1/keys/{id}/webhook/rotate-secret', 'identityToken'],
  ['get', '/api/v1/keys/{id}/webhook/deliveries', 'identityToken'],
  ['post', '/api/v1/keys/{id}/webhook/deliveries/{delivery_id}/retry', 'identityToken'],
  ['get', '/api/v1/accounts', 'identityToken'],
  ['post', '/api/v1/accounts/current', 'identityToken'],
  ['get', '/api/v1/members', 'identityToken'],
  ['post', '/api/v1/members/invites', 'identityToken'],
  ['post', '/api/v1/members/invites/accept', 'identityToken'],
  ['delete', '/api/v1/members/invites/{id}', 'identityToken'],
  ['patch', '/api/v1/members/{user_id}', 'identityToken'],
  ['delete', '/api/v1/members/{user_id}', 'identityToken'],
];

/** Why MySQL adds nothing here (docs/contributors/tests.md, which files run on both databases). */
const SQLITE_ONLY = 'the OpenAPI document';

describeOnSqlite('The OpenAPI document', SQLITE_ONLY, (dialect) => {
  const server = useTestServer(dialect);
  let doc: { paths: Record<string, Record<string, { security?: unknown; summary?: string; responses: object }>> };
  beforeAll(async () => {
    doc = (await server.api.get('/api/v1/openapi.json')).body;
  });

  it.each(DOCUMENTED_ENDPOINTS)('documents %s %s with its credential (%s)', (method, path, auth) => {
    const operation = doc.paths[path]?.[method];
    expect(operation, `${method.toUpperCase()} ${path} is missing`).toBeDefined();
    expect(operation!.summary).toEqual(expect.any(String));
    expect(operation!.security).toEqual(auth === 'none' ? [] : [{ [auth]: [] }]);
  });

  it.each([
    ['a body that is not JSON', 'post', '/api/v1/auth/login', { 'content-type': 'text/plain' }, 'email=a', 415],
    ['malformed JSON', 'post', '/api/v1/auth/login', { 'content-type': 'application/json' }, '{', 400],
    ['no credential', 'put', '/api/v1/settings/notifications', { 'content-type': 'application/json' }, '{}', 401],
    [
      'a cookie-borne call from another site',
      'post',
      '/api/v1/auth/logout',
      { cookie: `${SESSION_COOKIE_NAME}=x`, origin: 'https://elsewhere.test' },
      undefined,
      403,
    ],
  ] as const)('answers %s with a status the operation documents', async (_, method, path, headers, body, status) => {
    const response = await server.api.request(method.toUpperCase(), path, { headers: { ...headers }, body });
    expect(response.status).toBe(status);
    const documented = doc.paths[path]![method]!.responses as Record<string, unknown>;
    expect(Object.keys(documented)).toContain(String(status));
    expect(response.body).toMatchObject({ code: expect.any(String), error: expect.any(String) });
  });

  it('describes the multipart form of the image endpoints', () => {
    for (const path of ['/api/v1/stage', '/api/v1/enhance', '/api/v1/place-products', '/api/v1/declutter']) {
      const content = (doc.paths[path]!.post as unknown as { requestBody: { content: Record<string, unknown> } })
        .requestBody.content;
      expect(Object.keys(content), path).toEqual(expect.arrayContaining(['application/json', 'multipart/form-data']));
    }
  });
});
