import type { MetaDescriptor } from '@remix-run/node';

/** A page's title and description. Remix keeps only the deepest route's `meta`, so every page gives both. */
export function pageMeta(title: string, description: string): MetaDescriptor[] {
  return [{ title }, { name: 'description', content: description }];
}
