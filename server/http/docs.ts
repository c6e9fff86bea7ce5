import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import express, { type Router } from 'express';
import type { OpenAPIObject } from 'trpc-to-openapi';
import { renderApiReference } from './api-reference/index.js';

/**
 * Swagger UI's files, found through the package's manifest: importing the package itself would load its 1.5 MB
 * browser bundle into every server process, only to ask for the folder it lies in.
 */
const SWAGGER_UI_ASSETS = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
/** Our configuration and styles for Swagger UI (server/http/docs-assets, copied next to the compiled server). */
const OWN_ASSETS = fileURLToPath(new URL('./docs-assets/', import.meta.url));

/** Swagger UI over the same document, for those who want to fold and unfold it; linked from the reference. */
const SWAGGER_PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Roomstage API in Swagger UI</title>
  <meta name="description" content="The Roomstage REST API in Swagger UI: every endpoint, its credentials, request and responses, to unfold one by one.">
  <link rel="stylesheet" href="/docs/assets/swagger-ui.css">
  <link rel="stylesheet" href="/docs/own/reference.css">
</head>
<body>
  <div id="reference"></div>
  <script src="/docs/assets/swagger-ui-bundle.js"></script>
  <script src="/docs/own/reference.js"></script>
</body>
</html>`;

/**
 * The API reference for people: at /docs server-written HTML pages without scripts (an index, one page per tag, the
 * schemas; see api-reference/), built from the document on the first request and kept; at /docs/try the same
 * document in Swagger UI (served from the swagger-ui-dist package, nothing fetched), read-only and configured to pass
 * axe-core (see docs-assets/reference.js). Swagger UI draws the whole document in the browser, which takes a phone
 * seconds; the reference pages come drawn.
 */
export function docsRouter(document: OpenAPIObject): Router {
  const docs = express.Router();
  let reference: Map<string, string> | undefined;
  docs.use('/assets', express.static(SWAGGER_UI_ASSETS, { maxAge: '1d', index: false }));
  docs.use('/own', express.static(OWN_ASSETS, { maxAge: '1h', index: false }));
  docs.get('/try', (_req, res) => res.type('html').send(SWAGGER_PAGE));
  docs.get(['/', '/:page'], (req, res, next) => {
    reference ??= renderApiReference(document);
    const page = reference.get(req.params.page ?? '');
    if (page === undefined) return next();
    res.type('html').send(page);
  });
  return docs;
}
