import type { OpenAPIObject } from 'trpc-to-openapi';

/**
 * The API reference for people at /docs: plain HTML written once from the OpenAPI document, with no script, so it is
 * readable at once on a slow phone, by a screen reader and by a search engine. Tags are sections, each operation has
 * its anchor; schemas the document names are described once at the end and linked.
 */

type Schema = Record<string, unknown>;
type Operation = Schema & { operationId?: string; tags?: string[]; summary?: string; description?: string };

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;
const SCHEMA_PREFIX = '#/components/schemas/';
const RESPONSE_PREFIX = '#/components/responses/';
/** Nested objects are described field by field down to this depth; deeper ones are named by type only. */
const MAX_DEPTH = 4;

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (char) => ESCAPES[char] ?? char);

/** The little Markdown the document's descriptions use: `code`, and lines starting with "- " as a list. */
function prose(text: string | undefined, block = true): string {
  if (!text) return '';
  const inline = (line: string) => escapeHtml(line).replace(/`([^`]+)`/g, '<code>$1</code>');
  if (!block) return inline(text);
  const out: string[] = [];
  let items: string[] = [];
  const flush = () => {
    if (items.length > 0) out.push(`<ul>${items.map((item) => `<li>${item}</li>`).join('')}</ul>`);
    items = [];
  };
  for (const line of text.split('\n')) {
    if (line.startsWith('- ')) items.push(inline(line.slice(2)));
    else if (line.trim()) {
      flush();
      out.push(`<p>${inline(line)}</p>`);
    }
  }
  flush();
  return out.join('');
}

export const slug = (text: string) =>
  text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');

/** The anchor of an operation: its operationId as it is (when it is a plain word), else a slug of it or of its method and path. */
export function operationAnchor(method: string, path: string, operation: { operationId?: string }): string {
  const id = operation.operationId;
  return `op-${id && /^[\w-]+$/.test(id) ? id : slug(id ?? `${method} ${path}`)}`;
}

const schemaAnchor = (name: string) => `schema-${slug(name)}`;
const refName = (ref: string) => ref.slice(ref.lastIndexOf('/') + 1);

interface FieldRow {
  name: string;
  type: string;
  required: boolean;
  description: string;
}

class Renderer {
  constructor(private readonly document: OpenAPIObject) {}

  private schemaByRef(ref: string): Schema {
    if (!ref.startsWith(SCHEMA_PREFIX)) return {};
    return ((this.document.components?.schemas ?? {}) as Record<string, Schema>)[refName(ref)] ?? {};
  }

  /** `allOf` merged into one object schema, so its fields read as one list. */
  private merged(schema: Schema): Schema {
    if (!Array.isArray(schema.allOf)) return schema;
    const properties: Record<string, unknown> = {};
    const required: string[] = [];
    for (const part of schema.allOf as Schema[]) {
      const resolved = this.merged(typeof part.$ref === 'string' ? this.schemaByRef(part.$ref) : part);
      Object.assign(properties, resolved.properties ?? {});
      required.push(...((resolved.required as string[] | undefined) ?? []));
    }
    return { ...schema, type: 'object', properties, required };
  }

  /** A short type, with links to the named schemas: "integer", "array of StageResult", "string or null". */
  typeOf(schema: Schema): string {
    if (typeof schema.$ref === 'string') {
      const name = refName(schema.$ref);
      return `<a href="/docs/schemas#${schemaAnchor(name)}">${escapeHtml(name)}</a>`;
    }
    const variants = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
    if (variants) return [...new Set(variants.map((variant) => this.typeOf(variant)))].join(' or ');
    if (schema.const !== undefined) return `<code>${escapeHtml(JSON.stringify(schema.const))}</code>`;
    const types = Array.isArray(schema.type) ? (schema.type as string[]) : [schema.type as string | undefined];
    return types
      .map((type) => {
        if (type === 'array') return `array of ${this.typeOf((schema.items as Schema | undefined) ?? {})}`;
        if (type === undefined) return schema.properties || schema.allOf ? 'object' : 'any';
        return typeof schema.format === 'string' ? `${type} (${escapeHtml(schema.format)})` : type;
      })
      .join(' or ');
  }

  /** Allowed values, bounds and default, after the schema's own description. */
  private describe(schema: Schema, fallback?: string): string {
    const parts = [prose((schema.description as string | undefined) ?? fallback, false)];
    const enumValues = schema.enum as unknown[] | undefined;
    if (enumValues)
      parts.push(`One of ${enumValues.map((value) => `<code>${escapeHtml(String(value))}</code>`).join(', ')}.`);
    const bounds: string[] = [];
    const bound = (label: string, key: string) => {
      if (typeof schema[key] === 'number') bounds.push(`${label} ${schema[key]}`);
    };
    bound('at least', 'minimum');
    bound('above', 'exclusiveMinimum');
    bound('at most', 'maximum');
    bound('below', 'exclusiveMaximum');
    bound('at least', 'minLength');
    bound('at most', 'maxLength');
    bound('at most', 'maxItems');
    if (typeof schema.minLength === 'number' || typeof schema.maxLength === 'number') bounds.push('characters');
    if (bounds.length > 0) parts.push(`${bounds.join(', ').replace(/, characters$/, ' characters')}.`);
    if (schema.default !== undefined) parts.push(`Default <code>${escapeHtml(JSON.stringify(schema.default))}</code>.`);
    return parts.filter(Boolean).join(' ');
  }

  /** An object's fields as rows, nested objects (and arrays of them) as `parent.child` and `parent[].child`. */
  fields(schema: Schema, prefix = '', depth = 0): FieldRow[] {
    const object = this.merged(schema);
    const properties = (object.properties ?? {}) as Record<string, Schema>;
    const required = new Set((object.required as string[] | undefined) ?? []);
    const rows: FieldRow[] = [];
    for (const [name, property] of Object.entries(properties)) {
      const fullName = `${prefix}${name}`;
      rows.push({
        name: fullName,
        type: this.typeOf(property),
        required: required.has(name),
        description: this.describe(property),
      });
      if (depth + 1 >= MAX_DEPTH) continue;
      for (const [nested, suffix] of this.inlineObjects(property))
        rows.push(...this.fields(nested, `${fullName}${suffix}.`, depth + 1));
    }
    return rows;
  }

  /** The unnamed object schemas inside a property (itself, its array items, its variants), with the name suffix. */
  private inlineObjects(property: Schema): Array<[Schema, string]> {
    if (property.$ref) return [];
    if (property.properties || property.allOf) return [[property, '']];
    if (property.items)
      return this.inlineObjects(property.items as Schema).map(([schema, suffix]) => [schema, `[]${suffix}`]);
    const variants = (property.anyOf ?? property.oneOf) as Schema[] | undefined;
    return variants ? variants.flatMap((variant) => this.inlineObjects(variant)) : [];
  }

  fieldTable(rows: FieldRow[], caption: string): string {
    if (rows.length === 0) return '';
    const body = rows
      .map(
        (row) =>
          `<tr><th scope="row"><code>${escapeHtml(row.name)}</code>${row.required ? ' <span class="req">required</span>' : ''}</th>` +
          `<td>${row.type}</td><td>${row.description}</td></tr>`,
      )
      .join('');
    return `<table tabindex="0"><caption>${escapeHtml(caption)}</caption><thead><tr><th scope="col">Field</th><th scope="col">Type</th><th scope="col">Description</th></tr></thead><tbody>${body}</tbody></table>`;
  }

  /** A body: its type when it is not a plain object (a named schema, a union), then its fields. */
  body(schema: Schema, caption: string): string {
    const plainObject = !schema.$ref && (schema.properties || schema.allOf);
    const lead = plainObject ? '' : `<p>Body: ${this.typeOf(schema)}</p>`;
    return (
      lead +
      this.fieldTable(
        plainObject
          ? this.fields(schema)
          : [...this.inlineObjects(schema)].flatMap(([s, p]) => this.fields(s, p ? `${p}.` : '')),
        caption,
      )
    );
  }

  private credentials(operation: Operation): string {
    const requirements = (operation.security ?? this.document.security ?? []) as Array<Record<string, unknown>>;
    if (requirements.length === 0) return 'None';
    return requirements
      .map((requirement) =>
        Object.keys(requirement)
          .map((name) => `<a href="/docs/#auth-${slug(name)}">${escapeHtml(SCHEME_LABELS[name] ?? name)}</a>`)
          .join(' and '),
      )
      .join(' or ');
  }

  private parameters(operation: Operation, pathItem: Schema): string {
    const all = [...((pathItem.parameters as Schema[]) ?? []), ...((operation.parameters as Schema[]) ?? [])];
    if (all.length === 0) return '';
    const rows = all
      .map((parameter) => {
        const schema = (parameter.schema as Schema | undefined) ?? {};
        return (
          `<tr><th scope="row"><code>${escapeHtml(String(parameter.name))}</code>${parameter.required ? ' <span class="req">required</span>' : ''}</th>` +
          `<td class="token">${escapeHtml(String(parameter.in))}</td><td>${this.typeOf(schema)}</td>` +
          `<td>${this.describe({ ...schema, description: parameter.description ?? schema.description })}</td></tr>`
        );
      })
      .join('');
    return `<h3>Parameters</h3><table tabindex="0"><thead><tr><th scope="col">Name</th><th scope="col">In</th><th scope="col">Type</th><th scope="col">Description</th></tr></thead><tbody>${rows}</tbody></table>`;
  }

  private requestBody(operation: Operation): string {
    const requestBody = operation.requestBody as Schema | undefined;
    if (!requestBody) return '';
    const content = (requestBody.content ?? {}) as Record<string, { schema?: Schema }>;
    const parts = Object.entries(content).map(
      ([mediaType, { schema }]) =>
        `<p class="media"><code>${escapeHtml(mediaType)}</code>${requestBody.required ? ' (required)' : ''}</p>` +
        this.body(schema ?? {}, `Request fields (${mediaType})`),
    );
    return `<h3>Request body</h3>${prose(requestBody.description as string | undefined)}${parts.join('')}`;
  }

  private responses(operation: Operation): string {
    const responses = (operation.responses ?? {}) as Record<string, Schema>;
    const success: string[] = [];
    const errors: string[] = [];
    for (const [status, raw] of Object.entries(responses)) {
      const response =
        typeof raw.$ref === 'string' && raw.$ref.startsWith(RESPONSE_PREFIX)
          ? (((this.document.components?.responses ?? {}) as unknown as Record<string, Schema>)[refName(raw.$ref)] ??
            {})
          : raw;
      const description = (response.description as string | undefined) ?? '';
      if (/^[23]/.test(status)) {
        const headers = Object.entries((response.headers ?? {}) as Record<string, Schema>)
          .map(
            ([name, header]) =>
              `<li>Header <code>${escapeHtml(name)}</code>: ${prose(header.description as string, false)}</li>`,
          )
          .join('');
        const bodies = Object.entries((response.content ?? {}) as Record<string, { schema?: Schema }>).map(
          ([mediaType, { schema }]) => this.body(schema ?? {}, `Response ${status} fields (${mediaType})`),
        );
        success.push(
          `<h4 class="status">${escapeHtml(status)} ${prose(description, false)}</h4>${headers ? `<ul>${headers}</ul>` : ''}${bodies.join('')}`,
        );
        continue;
      }
      // Error responses list their codes as "- `code`: when" lines under the status text.
      const lines = description.split('\n');
      const codes = lines.filter((line) => line.startsWith('- '));
      const rows = (codes.length > 0 ? codes : [`- ${lines[0] ?? ''}`])
        .map((line) => {
          const match = /^- `([a-z_]+)`: ?(.*)$/.exec(line);
          return match
            ? `<tr><th scope="row">${escapeHtml(status)}</th><td class="token"><code>${escapeHtml(match[1] ?? '')}</code></td><td>${prose(match[2], false)}</td></tr>`
            : `<tr><th scope="row">${escapeHtml(status)}</th><td></td><td>${prose(line.slice(2), false)}</td></tr>`;
        })
        .join('');
      errors.push(rows);
    }
    const errorTable =
      errors.length > 0
        ? `<table tabindex="0"><caption>Errors (body: <a href="/docs/schemas#schema-error">Error</a>)</caption><thead><tr><th scope="col">Status</th><th scope="col">Code</th><th scope="col">When</th></tr></thead><tbody>${errors.join('')}</tbody></table>`
        : '';
    return `<h3>Responses</h3>${success.join('')}${errorTable}`;
  }

  operation(method: string, path: string, operation: Operation, pathItem: Schema): string {
    const anchor = operationAnchor(method, path, operation);
    return (
      `<article class="op" aria-labelledby="${anchor}">` +
      `<h2 id="${anchor}"><span class="method method--${method}">${method.toUpperCase()}</span> <code>${escapeHtml(path)}</code></h2>` +
      `<p class="summary">${prose(operation.summary, false)}</p>${prose(operation.description)}` +
      `<p class="credentials"><strong>Credentials:</strong> ${this.credentials(operation)}</p>` +
      this.parameters(operation, pathItem) +
      this.requestBody(operation) +
      this.responses(operation) +
      `<p class="anchor-link"><a href="#${anchor}">Link to this operation</a> · <a href="#contents">Contents</a></p>` +
      '</article>'
    );
  }

  /** Every operation by tag, in the document's tag order; untagged ones last under "Other". */
  operationsByTag(): Array<{
    name: string;
    description?: string;
    operations: Array<[string, string, Operation, Schema]>;
  }> {
    const declared = ((this.document.tags ?? []) as Array<{ name: string; description?: string }>).map((tag) => ({
      ...tag,
      operations: [] as Array<[string, string, Operation, Schema]>,
    }));
    const byName = new Map(declared.map((tag) => [tag.name, tag]));
    for (const [path, item] of Object.entries((this.document.paths ?? {}) as Record<string, Schema>)) {
      for (const method of METHODS) {
        const operation = item[method] as Operation | undefined;
        if (!operation) continue;
        const name = operation.tags?.[0] ?? 'Other';
        let tag = byName.get(name);
        if (!tag) {
          tag = { name, operations: [] };
          byName.set(name, tag);
          declared.push(tag);
        }
        tag.operations.push([method, path, operation, item]);
      }
    }
    return declared.filter((tag) => tag.operations.length > 0);
  }

  schemas(): string {
    const schemas = Object.entries((this.document.components?.schemas ?? {}) as Record<string, Schema>);
    return schemas
      .map(
        ([name, schema]) =>
          `<section class="schema" aria-labelledby="${schemaAnchor(name)}"><h2 id="${schemaAnchor(name)}">${escapeHtml(name)}</h2>` +
          `${prose(schema.description as string | undefined)}${this.body(schema, `${name} fields`)}</section>`,
      )
      .join('');
  }

  authentication(): string {
    const schemes = Object.entries(
      (this.document.components?.securitySchemes ?? {}) as unknown as Record<string, Schema>,
    );
    return schemes
      .map(
        ([name, scheme]) =>
          `<dt id="auth-${slug(name)}">${escapeHtml(SCHEME_LABELS[name] ?? name)}</dt><dd>${prose(scheme.description as string, false)}` +
          (scheme.bearerFormat ? ` Format: <code>${escapeHtml(String(scheme.bearerFormat))}</code>.` : '') +
          '</dd>',
      )
      .join('');
  }
}

/** Names people read for the document's security schemes. */
const SCHEME_LABELS: Record<string, string> = { apiKey: 'API key', identityToken: 'Identity token' };

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

/** Tables scroll sideways on phones rather than break names, so each takes keyboard focus (tabindex="0"). */
const STYLES = `
:root{color-scheme:light;--text:#1d2330;--muted:#4a5365;--line:#d8dce4;--accent:#1f5fad;--bg-soft:#f4f6f9}
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--text);background:#fff}
a{color:var(--accent)}
code{font:0.9em/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;overflow-wrap:anywhere}
.skip{position:absolute;left:-999px;top:0;background:#fff;padding:0.5rem}
.skip:focus{left:0.5rem}
.top{padding:1rem 1.25rem;border-bottom:1px solid var(--line)}
.brand{margin:0;font-weight:600}
h1{font-size:1.7rem;margin:0.4rem 0}
main > h2:first-child,main > section:first-child > h2{margin-top:0.5rem}
.version{font-size:0.9rem;font-weight:400;color:var(--muted)}
.layout{display:grid;grid-template-columns:minmax(15rem,19rem) minmax(0,1fr)}
.layout nav{grid-column:1;grid-row:1}
.layout main{grid-column:2;grid-row:1}
.single{max-width:62rem}
.ops{padding-left:1.2rem}
.ops li{margin:0.35rem 0}
nav{padding:1rem 1.25rem;border-right:1px solid var(--line);font-size:0.9rem}
nav h2{font-size:1.1rem;margin-top:0}
nav ul{list-style:none;padding-left:0;margin:0}
nav ul ul{padding-left:0.5rem;margin-bottom:0.6rem}
nav li{margin:0.15rem 0}
nav a{display:inline-block;padding:0.1rem 0;overflow-wrap:anywhere}
main{padding:1rem 1.25rem;min-width:0}
h2{font-size:1.45rem;margin:2rem 0 0.5rem;padding-top:0.5rem;border-top:2px solid var(--line)}
.op,.schema{content-visibility:auto;contain-intrinsic-size:auto 900px;margin:1.25rem 0;padding:1rem;border:1px solid var(--line);border-radius:6px}
.op h2,.schema h2{font-size:1.1rem;margin:0 0 0.3rem;padding:0;border:0;overflow-wrap:anywhere}
.op h3{font-size:1rem;margin:1rem 0 0.3rem}
h4{font-size:0.95rem;margin:0.6rem 0 0.3rem}
.summary{font-weight:600;margin:0.3rem 0}
.method{display:inline-block;min-width:3.6rem;padding:0 0.3rem;border-radius:4px;color:#fff;font:700 0.75rem/1.6 ui-monospace,Menlo,monospace;text-align:center}
.method--get{background:#1f5fad}.method--post{background:#19774a}.method--put{background:#8a5200}.method--patch{background:#0f6b63}.method--delete{background:#b42323}
.req{font-size:0.75rem;color:#8a1f1f;font-weight:600}
table{border-collapse:collapse;width:100%;font-size:0.9rem;margin:0.4rem 0}
caption{text-align:left;font-weight:600;padding:0.2rem 0}
th,td{overflow-wrap:break-word;border-top:1px solid var(--line);padding:0.35rem 0.5rem;text-align:left;vertical-align:top}
thead th{background:var(--bg-soft);white-space:nowrap}
.token,.token code,tbody th code{white-space:nowrap;overflow-wrap:normal}
tbody th{font-weight:400;white-space:nowrap}
.anchor-link{font-size:0.85rem;margin-bottom:0}
dt{font-weight:600}
dd{margin:0 0 0.6rem 0}
@media (max-width:760px){.layout{display:block}nav{border-right:0;border-top:1px solid var(--line)}table{display:block;overflow-x:auto}}
table:focus-visible{outline:2px solid var(--accent);outline-offset:2px}
`;
