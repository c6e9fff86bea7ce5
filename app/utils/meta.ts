import type { MetaDescriptor } from '@remix-run/node';

/** A page's title and description. Remix keeps only the deepest route's `meta`, so every page gives both. */
export function pageMeta(title: string, description: string): MetaDescriptor[] {
  return [{ title }, { name: 'description', content: description }];
}

/** The not-found page's title and description: also what an operator page says to anyone who is not an operator. */
export const notFoundMeta = (): MetaDescriptor[] =>
  pageMeta(
    'Page not found · Roomstage',
    'This Roomstage page does not exist; the links here lead back to the dashboard and the API reference.',
  );
