/** An OpenAPI document's operations and schemas as HTML: fields as tables, responses with their errors. */
import type { OpenAPIObject } from 'trpc-to-openapi';
import {
  escapeHtml,
  MAX_DEPTH,
  METHODS,
  type Operation,
  operationAnchor,
  prose,
  refName,
  RESPONSE_PREFIX,
  type Schema,
  SCHEMA_PREFIX,
  schemaAnchor,
  SCHEME_LABELS,
  slug,
} from './markup.js';
interface FieldRow {
  name: string;
  type: string;
  required: boolean;
  description: string;
}

export class Renderer {
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
