import { describe, expect, it } from 'vitest';
import type { OpenAPIObject } from 'trpc-to-openapi';
import { renderApiReference } from '../../server/http/api-reference/index.js';

const DOCUMENT = {
  openapi: '3.1.0',
  info: { title: 'Example <API>', version: '1.0.0', description: 'Use `Bearer` keys.' },
  tags: [{ name: 'Things', description: 'Things & more' }],
  paths: {
    '/things/{id}': {
      patch: {
        operationId: 'things-update',
        summary: 'Update a thing <script>alert(1)</script>',
        tags: ['Things'],
        security: [{ apiKey: [] }],
        parameters: [{ in: 'path', name: 'id', required: true, schema: { type: 'integer', minimum: 1 } }],
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: {
                type: 'object',
                required: ['owner'],
                properties: {
                  owner: { type: 'object', properties: { email: { type: 'string', maxLength: 254 } } },
                  tags: { type: 'array', items: { type: 'object', properties: { label: { type: 'string' } } } },
                  color: { type: 'string', enum: ['red', 'blue'], default: 'red' },
                },
              },
            },
          },
        },
        responses: {
          '200': {
            description: 'Updated',
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } },
          },
          '409': { description: 'Conflict:\n- `conflict`: the thing is locked\n- `gone_away`: it left' },
        },
      },
    },
    '/health': { get: { summary: 'Health', security: [], responses: { '200': { description: 'ok' } } } },
  },
  components: {
    schemas: { Thing: { type: 'object', properties: { id: { type: 'integer' }, note: { type: ['string', 'null'] } } } },
    securitySchemes: { apiKey: { type: 'http', scheme: 'bearer', description: 'An API key' } },
  },
} as unknown as OpenAPIObject;

describe('The HTML API reference', () => {
  const pages = renderApiReference(DOCUMENT);
  const html = [...pages.values()].join('\n');

  it('escapes every text of the document, so a description can never inject markup', () => {
    expect(html).not.toContain('<script');
    expect(html).toContain('Update a thing &lt;script&gt;alert(1)&lt;/script&gt;');
    expect(pages.get('')).toContain('<title>Example &lt;API&gt; reference</title>');
    expect(html).toContain('Use <code>Bearer</code> keys.');
  });

  it('names nested fields by their path, with required marks, allowed values, bounds and defaults', () => {
    expect(html).toMatch(/<code>owner<\/code> <span class="req">required<\/span>/);
    expect(html).toContain('<code>owner.email</code>');
    expect(html).toContain('at most 254 characters.');
    expect(html).toContain('<code>tags[].label</code>');
    expect(html).toContain('One of <code>red</code>, <code>blue</code>. Default <code>&quot;red&quot;</code>.');
    expect(html).toContain('at least 1.');
  });

  it('links named schemas to their description and lists each error code of a status on its own row', () => {
    expect(pages.get('things')).toContain('Body: <a href="/docs/schemas#schema-thing">Thing</a>');
    expect(pages.get('schemas')).toContain('<h2 id="schema-thing">Thing</h2>');
    expect(html).toContain('<code>note</code></th><td>string or null</td>');
    expect(html).toContain(
      '<th scope="row">409</th><td class="token"><code>conflict</code></td><td>the thing is locked</td>',
    );
    expect(html).toContain('<th scope="row">409</th><td class="token"><code>gone_away</code></td><td>it left</td>');
  });

  it('gives each tag a page, anchors operations by operationId (or method and path), and links them from the index', () => {
    expect([...pages.keys()]).toEqual(['', 'things', 'other', 'schemas']);
    expect(pages.get('things')).toContain('<h2 id="op-things-update">');
    expect(pages.get('')).toContain('<a href="/docs/things#op-things-update">');
    expect(pages.get('schemas')).toContain('<a href="/docs/things#op-things-update">');
    // An operation without a declared tag still appears, under "Other".
    expect(pages.get('other')).toContain('<h2 id="op-get-health">');
    expect(pages.get('things')).toContain('<strong>Credentials:</strong> <a href="/docs/#auth-apikey">API key</a>');
    expect(pages.get('other')).toContain('<strong>Credentials:</strong> None');
    expect(pages.get('')).toContain('<dt id="auth-apikey">API key</dt>');
  });

  it('refuses a tag whose page would take the place of Swagger UI or the assets', () => {
    const clash = { ...DOCUMENT, tags: [{ name: 'Try' }], paths: { '/x': { get: { tags: ['Try'], responses: {} } } } };
    expect(() => renderApiReference(clash as unknown as OpenAPIObject)).toThrow(/Try/);
  });
});
