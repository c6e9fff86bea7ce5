/** What every reference page is written with: the document's types, escaping, its little Markdown, anchors. */
export type Schema = Record<string, unknown>;
export type Operation = Schema & { operationId?: string; tags?: string[]; summary?: string; description?: string };

export const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;
export const SCHEMA_PREFIX = '#/components/schemas/';
export const RESPONSE_PREFIX = '#/components/responses/';
/** Nested objects are described field by field down to this depth; deeper ones are named by type only. */
export const MAX_DEPTH = 4;

export const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
export const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (char) => ESCAPES[char] ?? char);

/** The little Markdown the document's descriptions use: `code`, and lines starting with "- " as a list. */
export function prose(text: string | undefined, block = true): string {
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

export const schemaAnchor = (name: string) => `schema-${slug(name)}`;
export const refName = (ref: string) => ref.slice(ref.lastIndexOf('/') + 1);

/** Names people read for the document's security schemes. */
export const SCHEME_LABELS: Record<string, string> = { apiKey: 'API key', identityToken: 'Identity token' };
