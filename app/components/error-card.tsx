import { isRouteErrorResponse, Link } from '@remix-run/react';

export interface DescribedRouteError {
  status: number;
  title: string;
  text: string;
}

/** Friendly words for whatever a loader or action threw; never the error's own text, which may be internal. */
export function describeRouteError(error: unknown): DescribedRouteError {
  if (isRouteErrorResponse(error)) {
    if (error.status === 404) {
      return {
        status: 404,
        title: 'Page not found',
        text: 'There is no page at this address. It may have moved, or the link may be mistyped.',
      };
    }
    if (error.status === 403) {
      return {
        status: 403,
        title: 'Not with your role',
        text: 'Your role in this account does not include this page. An owner or admin of the account can change it.',
      };
    }
    if (error.status === 401) {
      return {
        status: error.status,
        title: 'Please sign in',
        text: 'This page needs you to be signed in to the right account.',
      };
    }
    return {
      status: error.status,
      title: 'Something went wrong',
      text: 'The request could not be completed. Please try again in a moment.',
    };
  }
  return {
    status: 500,
    title: 'Something went wrong',
    text: 'An unexpected error happened on our side. It has been logged; please try again in a moment.',
  };
}

export function ErrorCard({ error, signedIn }: { error: unknown; signedIn: boolean }) {
  const { status, title, text } = describeRouteError(error);
  return (
    <section className="card error-page" aria-labelledby="error-title">
      <p className="error-page__status">Error {status}</p>
      <h1 id="error-title">{title}</h1>
      <p>{text}</p>
      <p className="actions">
        <Link to="/" className="button button--primary">
          Go to the home page
        </Link>
        {signedIn ? (
          <Link to="/overview" className="button button--ghost">
            Your overview
          </Link>
        ) : null}
      </p>
    </section>
  );
}
