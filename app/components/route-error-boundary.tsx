import { useRouteError, useRouteLoaderData } from '@remix-run/react';
import type { loader as rootLoader } from '../root.js';
import { ErrorCard } from './error-card.js';

/**
 * Every route's error boundary: the site header stays and the card offers a way on. The root loader has already
 * run when a route fails, so it says whether to offer the overview (pages behind sign-in always have an account).
 */
export function RouteErrorBoundary() {
  const error = useRouteError();
  const signedIn = Boolean(useRouteLoaderData<typeof rootLoader>('root')?.account);
  return <ErrorCard error={error} signedIn={signedIn} />;
}
