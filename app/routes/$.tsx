import type { MetaFunction } from '@remix-run/node';
import { notFoundMeta } from '../utils/meta.js';

/**
 * Any address no other route claims. Answering it here (rather than letting Remix find no match) keeps the root
 * loader running, so the 404 page still shows the header of whoever is signed in.
 */
export function loader() {
  throw new Response('Not found', { status: 404 });
}

export const meta: MetaFunction = notFoundMeta;

export default function NotFound() {
  return null;
}

export { RouteErrorBoundary as ErrorBoundary } from '../components/route-error-boundary.js';
