import { expect, it } from 'vitest';
import { describeEachDatabase } from '../helpers/each-database.js';
import { startTestServer, useTestServer } from '../helpers/server.js';

describeEachDatabase('Health, OpenAPI document, docs and error bodies', (dialect) => {
  const server = useTestServer(dialect);

  it('reports health without authentication', async () => {
    const response = await server.api.get('/api/health');
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      status: 'ok',
      version: expect.any(String),
      database: 'ok',
      uptime_s: expect.any(Number),
    });
  });

  it('documents every /api/v1 path with the one security scheme it accepts', async () => {
    const response = await server.api.get('/api/v1/openapi.json');
    expect(response.status).toBe(200);
    const doc = response.body;
    expect(doc.openapi).toMatch(/^3\./);
    const security = (path: string, method: string) => doc.paths[path]?.[method]?.security;
    expect(security('/api/v1/credits', 'get')).toEqual([{ apiKey: [] }]);
    expect(security('/api/v1/keys', 'post')).toEqual([{ identityToken: [] }]);
    expect(security('/api/v1/keys', 'get')).toEqual([{ identityToken: [] }]);
    expect(security('/api/v1/keys/{id}', 'delete')).toEqual([{ identityToken: [] }]);
    expect(security('/api/v1/me', 'get')).toEqual([{ identityToken: [] }]);
    expect(security('/api/v1/auth/logout', 'post')).toEqual([{ identityToken: [] }]);
    expect(security('/api/v1/auth/signup', 'post')).toEqual([]);
    expect(security('/api/v1/auth/login', 'post')).toEqual([]);
    expect(security('/api/health', 'get')).toEqual([]);
    expect(Object.keys(doc.components.securitySchemes).sort()).toEqual(['apiKey', 'identityToken']);
  });

  it('renders the API reference for people at /docs', async () => {
    const response = await server.api.get('/docs/');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/html');
    expect(response.text).toContain('/docs/assets/swagger-ui-bundle.js');
    expect((await server.api.get('/docs/own/reference.js')).text).toContain('/api/v1/openapi.json');
    expect((await server.api.get('/docs/own/reference.css')).status).toBe(200);
    expect((await server.api.get('/docs/assets/swagger-ui-bundle.js')).status).toBe(200);
  });

  it('answers unknown API paths with a JSON 404, never HTML', async () => {
    for (const path of ['/api/v1/nothing-here', '/api/nothing', '/api/v2/credits']) {
      const response = await server.api.get(path);
      expect(response.status, path).toBe(404);
      expect(response.headers.get('content-type')).toContain('application/json');
      expect(response.body).toMatchObject({ error: 'not found', code: 'not_found', message: expect.any(String) });
    }
  });

  it('answers malformed JSON with 400 invalid_request', async () => {
    const response = await server.api.post('/api/v1/auth/login', {
      body: '{"email": ',
      headers: { 'content-type': 'application/json' },
    });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ error: 'invalid request', code: 'invalid_request' });
  });

  it('answers a body that is not JSON with 415 JSON', async () => {
    const response = await server.api.post('/api/v1/auth/login', {
      body: 'email=a',
      headers: { 'content-type': 'text/plain' },
    });
    expect(response.status).toBe(415);
    expect(response.body).toMatchObject({ error: 'unsupported media type', code: 'unsupported_media_type' });
  });

  it('answers an oversized JSON body with 413', async () => {
    const response = await server.api.post('/api/v1/auth/login', {
      json: { email: 'a@b.c', password: 'x'.repeat(2_000_000) },
    });
    expect(response.status).toBe(413);
    expect(response.body.code).toBe('payload_too_large');
  });

  it('accepts a body-less POST without a Content-Type', async () => {
    const response = await server.api.post('/api/v1/auth/logout');
    expect(response.status).toBe(401);
    expect(response.body.code).toBe('authentication_required');
  });

  it('answers 503 degraded when the database does not answer', async () => {
    const other = await startTestServer(dialect);
    try {
      await other.services.db.destroy();
      const response = await other.api.get('/api/health');
      expect(response.status).toBe(503);
      expect(response.body).toMatchObject({ status: 'degraded', database: 'unavailable' });
    } finally {
      await other.close().catch(() => {});
      await other.dropDatabase();
    }
  });
});
