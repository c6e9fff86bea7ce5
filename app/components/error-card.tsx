import { Form, isRouteErrorResponse, Link } from '@remix-run/react';

export interface DescribedRouteError {
  status: number;
  title: string;
  text: string;
  /** The current account is suspended: the card offers the way out (the switcher above, signing out). */
  suspended?: boolean;
}

/** The JSON body a refused call's page carries (server/http/dashboard-context.ts, utils/session.server.ts). */
function refusalOf(data: unknown): { code?: string; account?: string; retry_after?: number } {
  return typeof data === 'object' && data !== null ? (data as Record<string, never>) : {};
}

/** Friendly words for whatever a loader or action threw; never the error's own text, which may be internal. */
export function describeRouteError(error: unknown): DescribedRouteError {
  if (isRouteErrorResponse(error)) {
    const refusal = refusalOf(error.data);
    if (error.status === 403 && refusal.code === 'account_suspended') {
      return {
        status: 403,
        title: 'This account is suspended',
        text: `${refusal.account ? `${refusal.account} is` : 'This account is'} suspended by Roomstage: its pages, keys and sessions do not work until it is restored. Switch to another of your accounts with the account menu above, or sign out.`,
        suspended: true,
      };
    }
    if (error.status === 429) {
      const seconds = refusal.retry_after;
      return {
        status: 429,
        title: 'Too many requests',
        text: `This page asked for more than its limit allows just now. ${seconds ? `Please try again in ${seconds} second${seconds === 1 ? '' : 's'}.` : 'Please try again in a minute.'}`,
      };
    }
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
  const { status, title, text, suspended } = describeRouteError(error);
  if (suspended)
    return (
      <section className="card error-page" aria-labelledby="error-title">
        <p className="error-page__status">Error {status}</p>
        <h1 id="error-title">{title}</h1>
        <p>{text}</p>
        <Form method="post" action="/logout" className="actions">
          <button type="submit" className="button button--primary">
            Sign out
          </button>
        </Form>
      </section>
    );
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
