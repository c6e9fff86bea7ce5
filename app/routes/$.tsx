import type { MetaFunction } from '@remix-run/node';
import { pageMeta } from '../utils/meta.js';

/**
 * Any address no other route claims. Answering it here (rather than letting Remix find no match) keeps the root
 * loader running, so the 404 page still shows the header of whoever is signed in.
 */
export function loader() {
  throw new Response('Not found', { status: 404 });
}

export const meta: MetaFunction = () =>
  pageMeta(
    'Page not found · Roomstage',
    'This Roomstage page does not exist; the links here lead back to the dashboard and the API reference.',
  );

export default function NotFound() {
  return null;
}

export { RouteErrorBoundary as ErrorBoundary } from '../components/route-error-boundary.js';
