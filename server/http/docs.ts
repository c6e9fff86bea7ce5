import express, { type Router } from 'express';
import { getAbsoluteFSPath } from 'swagger-ui-dist';

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Roomstage API reference</title>
  <link rel="stylesheet" href="/docs/assets/swagger-ui.css">
  <style>body{margin:0} .topbar{display:none}</style>
</head>
<body>
  <div id="reference"></div>
  <script src="/docs/assets/swagger-ui-bundle.js"></script>
  <script src="/docs/init.js"></script>
</body>
</html>`;

const INIT = `window.ui = SwaggerUIBundle({ url: '/api/v1/openapi.json', dom_id: '#reference', deepLinking: true, persistAuthorization: true });`;

/** The human API reference at /docs: Swagger UI (served from the swagger-ui-dist package, nothing fetched) over our document. */
export function docsRouter(): Router {
  const docs = express.Router();
  docs.use('/assets', express.static(getAbsoluteFSPath(), { maxAge: '1d', index: false }));
  docs.get('/init.js', (_req, res) => res.type('application/javascript').send(INIT));
  docs.get('/', (_req, res) => res.type('html').send(PAGE));
  return docs;
}
