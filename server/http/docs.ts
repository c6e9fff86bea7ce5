import { fileURLToPath } from 'node:url';
import express, { type Router } from 'express';
import { getAbsoluteFSPath } from 'swagger-ui-dist';

/** Our configuration and styles for Swagger UI (server/http/docs-assets, copied next to the compiled server). */
const OWN_ASSETS = fileURLToPath(new URL('./docs-assets/', import.meta.url));

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Roomstage API reference</title>
  <meta name="description" content="Reference of the Roomstage REST API: every endpoint, its credentials, request and responses.">
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
 * The human API reference at /docs: Swagger UI (served from the swagger-ui-dist package, nothing fetched) over our
 * document, read-only and configured to pass axe-core (see docs-assets/reference.js).
 */
export function docsRouter(): Router {
  const docs = express.Router();
  docs.use('/assets', express.static(getAbsoluteFSPath(), { maxAge: '1d', index: false }));
  docs.use('/own', express.static(OWN_ASSETS, { maxAge: '1h', index: false }));
  docs.get('/', (_req, res) => res.type('html').send(PAGE));
  return docs;
}
