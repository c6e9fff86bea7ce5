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

  it('serves the API reference at /docs as HTML without scripts, one page per tag, linking to Swagger UI at /docs/try', async () => {
    const response = await server.api.get('/docs/');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/html');
    expect(response.text).not.toContain('<script');
    expect(response.text).toContain('href="/docs/try"');
    expect(response.text).toContain('href="/api/v1/openapi.json"');
    const images = await server.api.get('/docs/images');
    expect(images.status).toBe(200);
    expect(images.text).not.toContain('<script');
    expect((await server.api.get('/docs/no-such-tag')).status).toBe(404);
    const swagger = await server.api.get('/docs/try');
    expect(swagger.status).toBe(200);
    expect(swagger.text).toContain('/docs/assets/swagger-ui-bundle.js');
    expect((await server.api.get('/docs/own/reference.js')).text).toContain('/api/v1/openapi.json');
    expect((await server.api.get('/docs/own/reference.css')).status).toBe(200);
    expect((await server.api.get('/docs/assets/swagger-ui-bundle.js')).status).toBe(200);
  });

  it('lists every operation of the OpenAPI document in the reference: on the index, and in full on its tag page with its parameters and every response status and error code', async () => {
    const doc = (await server.api.get('/api/v1/openapi.json')).body;
    const index = (await server.api.get('/docs/')).text;
    const tagPages = [
      ...new Set([...index.matchAll(/<h3 id="tag-[^"]+"><a href="(\/docs\/[a-z-]+)">/g)].map((match) => match[1]!)),
    ];
    expect(tagPages.length).toBe(doc.tags.length);
    const articles = new Map<string, string>();
    for (const page of tagPages) {
      const html = (await server.api.get(page)).text;
      for (const part of html.split('<article class="op" aria-labelledby="').slice(1)) {
        articles.set(`${page}#${part.slice(0, part.indexOf('"'))}`, part.slice(0, part.indexOf('</article>')));
      }
    }
    const textOf = (fragment: string) =>
      fragment
        .replace(/<[^>]+>/g, '')
        .replaceAll('&lt;', '<')
        .replaceAll('&gt;', '>')
        .replaceAll('&quot;', '"')
        .replaceAll('&#39;', "'")
        .replaceAll('&amp;', '&');
    let operations = 0;
    for (const [path, item] of Object.entries<Record<string, any>>(doc.paths)) {
      for (const [method, operation] of Object.entries<any>(item)) {
        operations += 1;
        const anchor = `op-${operation.operationId}`;
        const link = index.match(new RegExp(`<a href="(/docs/[a-z-]+#${anchor})">`))?.[1];
        expect(link, `${method} ${path} on the index`).toBeDefined();
        const article = articles.get(link!);
        expect(article, `${method} ${path} on ${link}`).toBeDefined();
        expect(article).toContain(
          `<h2 id="${anchor}"><span class="method method--${method}">${method.toUpperCase()}</span> <code>${path}</code></h2>`,
        );
        const text = textOf(article!);
        expect(text).toContain(operation.summary.replaceAll('`', ''));
        for (const parameter of operation.parameters ?? [])
          expect(text, `${anchor} ${parameter.name}`).toContain(parameter.name);
        for (const [status, response] of Object.entries<any>(operation.responses)) {
          expect(article, `${anchor} answers ${status}`).toMatch(
            new RegExp(`<h4 class="status">${status} |<th scope="row">${status}</th>`),
          );
          const shared = response.$ref ? doc.components.responses[response.$ref.split('/').pop()] : response;
          const codes: string[] =
            shared.content?.['application/json']?.schema?.allOf?.[1]?.properties?.code?.enum ?? [];
          for (const code of codes) expect(article, `${anchor} ${status} ${code}`).toContain(`<code>${code}</code>`);
        }
        expect(text.includes('Credentials: None'), anchor).toBe(operation.security.length === 0);
      }
    }
    expect(articles.size).toBe(operations);
    expect(operations).toBeGreaterThan(50);
    const schemas = (await server.api.get('/docs/schemas')).text;
    for (const name of Object.keys(doc.components.schemas))
      expect(schemas, name).toContain(`<h2 id="schema-${name.toLowerCase()}">`);
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
