import { get as httpGet, type IncomingMessage } from 'node:http';
import { expect, it } from 'vitest';
import { signUpWithKey } from '../fixtures/api-client.js';
import { dashboardPage } from '../helpers/dashboard-page.js';
import { describeOnSqlite } from '../helpers/each-database.js';
import { dataUrl, roomJpeg } from '../fixtures/images.js';
import { useTestServer } from '../helpers/server.js';

/** GET `path` as a browser that accepts gzip would; `encoding` is what the server says it sent. */
async function encodingOf(baseUrl: string, path: string, acceptEncoding = 'gzip') {
  const response = await fetch(new URL(path, baseUrl), { headers: { 'accept-encoding': acceptEncoding } });
  const text = await response.text();
  return {
    status: response.status,
    encoding: response.headers.get('content-encoding'),
    vary: response.headers.get('vary') ?? '',
    text,
  };
}

const descriptionsIn = (html: string) =>
  [...html.matchAll(/<meta name="description" content="([^"]*)"/g)].map((match) => match[1]!);

/** Why MySQL adds nothing here (docs/contributors/tests.md, which files run on both databases). */
const SQLITE_ONLY = 'response compression and page metadata';

describeOnSqlite('Compressed text responses and page descriptions', SQLITE_ONLY, (dialect) => {
  const server = useTestServer(dialect);

  it('gzips pages, their scripts and styles, and JSON for clients that accept it', async () => {
    const page = await encodingOf(server.url, '/login');
    expect(page.status).toBe(200);
    expect(page.encoding).toBe('gzip');
    expect(page.vary).toMatch(/accept-encoding/i);
    // Remix names its chunks and stylesheet by content hash: take them from the page.
    const assets = [...page.text.matchAll(/"(\/build\/[^"?]+\.(?:js|css))[^"]*"/g)].map((match) => match[1]!);
    expect(assets.some((path) => path.endsWith('.js'))).toBe(true);
    expect(assets.some((path) => path.endsWith('.css'))).toBe(true);
    let compressed = 0;
    for (const path of [...new Set(assets), '/api/v1/openapi.json', '/docs/', '/docs/assets/swagger-ui-bundle.js']) {
      const asset = await encodingOf(server.url, path);
      expect(asset.status, path).toBe(200);
      // Below 1 KB gzip's header costs more than it saves, so small chunks go out as they are.
      if (asset.text.length < 1024) continue;
      expect(asset.encoding, path).toBe('gzip');
      compressed += 1;
    }
    expect(compressed).toBeGreaterThanOrEqual(5);
  });

  it('sends text uncompressed to a client that does not accept gzip', async () => {
    expect((await encodingOf(server.url, '/login', 'identity')).encoding).toBeNull();
    expect((await encodingOf(server.url, '/api/v1/openapi.json', 'identity')).encoding).toBeNull();
    // Nor to one that names no encoding at all (fetch always sends the header; node:http does not).
    const plain = await new Promise<IncomingMessage>((resolve, reject) =>
      httpGet(new URL('/api/v1/openapi.json', server.url), resolve).on('error', reject),
    );
    plain.resume();
    expect(plain.statusCode).toBe(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.headers.vary).toMatch(/accept-encoding/i);
  });

  it('never compresses images: staged images go out byte for byte as stored', async () => {
    const account = await signUpWithKey(server.api);
    const staged = await server.api.post('/api/v1/stage', {
      token: account.key,
      json: { image: dataUrl(await roomJpeg(900, 600)), style: 'modern' },
    });
    expect(staged.status).toBe(200);
    const imagePath = new URL(staged.body.image_url).pathname;
    const image = await fetch(new URL(imagePath, server.url), { headers: { 'accept-encoding': 'gzip' } });
    expect(image.status).toBe(200);
    expect(image.headers.get('content-type')).toMatch(/^image\//);
    expect(image.headers.get('content-encoding')).toBeNull();
    expect(Number(image.headers.get('content-length'))).toBe((await image.arrayBuffer()).byteLength);
    const icon = await fetch(new URL('/docs/assets/favicon-32x32.png', server.url), {
      headers: { 'accept-encoding': 'gzip' },
    });
    expect(icon.headers.get('content-encoding')).toBeNull();
  });

  it('gives every page one meta description of its own, signed out and signed in', async () => {
    const account = await signUpWithKey(server.api);
    const pages = {
      visitor: ['/', '/login', '/signup', '/no-such-page', '/docs/'],
      account: [
        '/overview',
        '/keys',
        `/keys/${account.keyId}/webhook`,
        '/webhooks',
        '/billing',
        '/billing/transactions',
        '/usage',
        '/playground',
        '/claims',
        '/gallery',
      ],
    };
    const seen = new Map<string, string>();
    for (const [role, paths] of Object.entries(pages)) {
      for (const path of paths) {
        const page = await dashboardPage(server.url, path, role === 'account' ? account.token : 'none');
        const descriptions = descriptionsIn(page.html);
        expect(descriptions, `${role} ${path}`).toHaveLength(1);
        expect(descriptions[0]!.length, `${role} ${path}`).toBeGreaterThan(40);
        if (role === 'account') {
          expect(seen.get(descriptions[0]!), `${path} repeats the description of another page`).toBeUndefined();
          seen.set(descriptions[0]!, path);
        }
      }
    }
  });
});
