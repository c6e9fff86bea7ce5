/**
 * The API reference for people at /docs: plain HTML written once from the OpenAPI document, with no script, so it is
 * readable at once on a slow phone, by a screen reader and by a search engine. Tags are sections, each operation has
 * its anchor; schemas the document names are described once at the end and linked. This file writes the pages;
 * renderer.ts writes operations and schemas, markup.ts the shared escaping and anchors, styles.ts the one stylesheet.
 */
import type { OpenAPIObject } from 'trpc-to-openapi';
import { escapeHtml, type Operation, operationAnchor, prose, type Schema, slug } from './markup.js';
import { Renderer } from './renderer.js';
import { STYLES } from './styles.js';

/** Paths under /docs that are not reference pages, so no tag may take their name. */
const RESERVED_PAGES = new Set(['try', 'assets', 'own', 'schemas']);

/**
 * The reference as pages, by their path under /docs ('' is the index): the index (credentials, errors and every
 * operation with its summary, linked), one page per tag with its operations in full, and the shared schemas. One
 * page per tag keeps each small enough for a phone to lay out at once (the whole API on one page is ~12,000 elements).
 */
export function renderApiReference(document: OpenAPIObject): Map<string, string> {
  const renderer = new Renderer(document);
  const tags = renderer.operationsByTag().map((tag) => ({ ...tag, page: slug(tag.name) }));
  for (const tag of tags) {
    if (RESERVED_PAGES.has(tag.page) || tag.page === '')
      throw new Error(`The tag "${tag.name}" cannot have a page of its own`);
  }
  const { title, version } = document.info;
  const layout = (page: { title: string; description: string; heading: string; nav?: string; main: string }) =>
    `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(page.title)}</title>
<meta name="description" content="${escapeHtml(page.description)}">
<style>${STYLES}</style>
</head>
<body>
<a class="skip" href="#reference">Skip to the reference</a>
<header class="top">
<p class="brand"><a href="/">Roomstage</a> · <a href="/docs/">${escapeHtml(title)} reference</a> <span class="version">version ${escapeHtml(version)}</span></p>
<h1>${page.heading}</h1>
<p class="links"><a href="/docs/try">Explore in Swagger UI</a> · <a href="/api/v1/openapi.json">OpenAPI document (JSON)</a> · <a href="/playground">Try requests in the dashboard’s playground</a></p>
</header>
<div class="${page.nav ? 'layout' : 'single'}">
<main id="reference">
${page.main}
</main>
${page.nav ?? ''}
</div>
</body>
</html>`;
  const operationLink = (tagPage: string, [method, path, operation]: [string, string, Operation, Schema]) =>
    `<a href="/docs/${tagPage}#${operationAnchor(method, path, operation)}"><span class="method method--${method}">${method.toUpperCase()}</span> ${escapeHtml(path)}</a>`;
  const contents =
    '<nav id="contents" aria-labelledby="contents-title"><h2 id="contents-title">Contents</h2><ul>' +
    '<li><a href="/docs/#basics">Basics: server, credentials, errors</a></li>' +
    tags
      .map(
        (tag) =>
          `<li><a href="/docs/${tag.page}">${escapeHtml(tag.name)}</a><ul>` +
          tag.operations.map((entry) => `<li>${operationLink(tag.page, entry)}</li>`).join('') +
          '</ul></li>',
      )
      .join('') +
    '<li><a href="/docs/schemas">Schemas</a></li></ul></nav>';

  const server = (document.servers ?? [])[0]?.url;
  const index =
    '<section aria-labelledby="basics"><h2 id="basics">Basics</h2>' +
    prose(document.info.description) +
    (server
      ? `<p>Server: <code>${escapeHtml(server)}</code>. Request and response bodies are JSON unless an operation says otherwise.</p>`
      : '') +
    '<h3>Credentials</h3><p>Send the credential as <code>Authorization: Bearer …</code>. The two kinds are never interchangeable: the wrong kind is answered 401.</p>' +
    `<dl>${renderer.authentication()}</dl>` +
    '<h3>Errors</h3><p>Every error is one JSON body, described in <a href="/docs/schemas#schema-error">Error</a>; branch on <code>code</code>. Each operation lists the codes it can answer.</p></section>' +
    '<section aria-labelledby="operations"><h2 id="operations">Operations</h2>' +
    tags
      .map(
        (tag) =>
          `<h3 id="tag-${tag.page}"><a href="/docs/${tag.page}">${escapeHtml(tag.name)}</a></h3>${prose(tag.description)}<ul class="ops">` +
          tag.operations
            .map((entry) => `<li>${operationLink(tag.page, entry)}<br>${prose(entry[2].summary, false)}</li>`)
            .join('') +
          '</ul>',
      )
      .join('') +
    '<p><a href="/docs/schemas">Schemas</a>: the bodies several operations share.</p></section>';

  const pages = new Map<string, string>();
  pages.set(
    '',
    layout({
      title: `${title} reference`,
      description: REFERENCE_DESCRIPTION,
      heading: `${escapeHtml(title)} reference`,
      main: index,
    }),
  );
  for (const tag of tags) {
    pages.set(
      tag.page,
      layout({
        title: `${tag.name} · ${title} reference`,
        description: `${title} reference, ${tag.name}: ${tag.description ?? 'its operations'} Each operation with its credentials, parameters, fields, responses and error codes.`,
        heading: escapeHtml(tag.name),
        nav: contents,
        main:
          prose(tag.description) +
          tag.operations
            .map(([method, path, operation, item]) => renderer.operation(method, path, operation, item))
            .join(''),
      }),
    );
  }
  pages.set(
    'schemas',
    layout({
      title: `Schemas · ${title} reference`,
      description: `${title} reference: the request and response bodies that several operations share, field by field, and the error body.`,
      heading: 'Schemas',
      nav: contents,
      main: `<p>Bodies that several operations share.</p>${renderer.schemas()}`,
    }),
  );
  return pages;
}

export const REFERENCE_DESCRIPTION =
  'Reference of the Roomstage REST API: every endpoint with its credentials, parameters, request fields, responses and error codes.';
