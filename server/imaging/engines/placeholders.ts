/**
 * Templates (a ComfyUI workflow, a Replicate input) name the request's values by placeholder strings: a string that
 * is exactly "{{name}}" is replaced whole by the value, so "{{seed}}" becomes a number, not a string.
 */
export type PlaceholderValues = Record<'image' | 'prompt' | 'negative_prompt' | 'seed', string | number>;

const PLACEHOLDER = /^\{\{(image|prompt|negative_prompt|seed)\}\}$/;

export function fillPlaceholders(template: unknown, values: PlaceholderValues): unknown {
  if (typeof template === 'string') {
    const match = PLACEHOLDER.exec(template);
    return match ? values[match[1] as keyof PlaceholderValues] : template;
  }
  if (Array.isArray(template)) return template.map((item) => fillPlaceholders(item, values));
  if (template && typeof template === 'object') {
    return Object.fromEntries(Object.entries(template).map(([key, value]) => [key, fillPlaceholders(value, values)]));
  }
  return template;
}

/** Whether `template` names `name` somewhere (a workflow without "{{image}}" could never see the photo). */
export function mentionsPlaceholder(template: unknown, name: keyof PlaceholderValues): boolean {
  return JSON.stringify(template).includes(`"{{${name}}}"`);
}
