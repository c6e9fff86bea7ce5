import type { LinksFunction, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import {
  Links,
  Meta,
  Outlet,
  Scripts,
  ScrollRestoration,
  useLoaderData,
  useNavigation,
  useRouteError,
  useRouteLoaderData,
} from '@remix-run/react';
import { type ReactNode, useEffect } from 'react';
import './load-context';
import { describeRouteError, ErrorCard } from './components/error-card.js';
import { type HeaderAccount, SiteHeader } from './components/site-header.js';
import styles from './styles.css?url';
import { pageMeta } from './utils/meta.js';
import { useNonce } from './utils/nonce.js';
import { getSignedIn } from './utils/session.server.js';

/** The icon is served from public/ (favicon.svg, and favicon.ico for what asks for /favicon.ico by name). */
export const links: LinksFunction = () => [
  { rel: 'stylesheet', href: styles },
  { rel: 'icon', href: '/favicon.svg', type: 'image/svg+xml' },
  { rel: 'icon', href: '/favicon.ico', sizes: '16x16 32x32 48x48' },
];

export const meta: MetaFunction = ({ error }) =>
  pageMeta(
    error ? `${describeRouteError(error).title} · Roomstage` : 'Roomstage',
    'Roomstage: virtual staging for room photos, through a REST API and a dashboard.',
  );

/**
 * Every page shows who is signed in, the accounts they can switch to and only the pages their role there may use;
 * a missing or expired session simply reads as a visitor.
 */
export async function loader({ context }: LoaderFunctionArgs): Promise<{ account: HeaderAccount | null }> {
  const signedIn = await getSignedIn(context);
  if (!signedIn) return { account: null };
  const { account, current } = signedIn;
  const { accounts } = await context.trpc.teams.accounts();
  return { account: { email: account.email, operator: account.operator, accounts, current } };
}

export function Layout({ children }: { children: ReactNode }) {
  const nonce = useNonce();
  // Marks the page once React has taken it over (its effects have run): browser tests look at the page a person
  // sees from then on, instead of waiting for the network to stay quiet for half a second after every load.
  useEffect(() => {
    document.documentElement.dataset.hydrated = 'true';
  }, []);
  return (
    <html lang="en">
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="color-scheme" content="light dark" />
        <Meta />
        <Links />
      </head>
      <body>
        <a href="#content" className="skip-link">
          Skip to content
        </a>
        {children}
        <ScrollRestoration nonce={nonce} />
        <Scripts nonce={nonce} />
      </body>
    </html>
  );
}

function Page({ account, children }: { account: HeaderAccount | null; children: ReactNode }) {
  // Form submissions show progress on their own buttons; moving between pages shows this bar.
  const loading = useNavigation().state === 'loading';
  return (
    <>
      <div className="route-progress" role="status">
        {loading ? (
          <>
            <span className="route-progress__bar" aria-hidden="true" />
            <span className="visually-hidden">Loading the page…</span>
          </>
        ) : null}
      </div>
      <SiteHeader account={account} />
      <main id="content" className="page" tabIndex={-1}>
        {children}
      </main>
      <footer className="site-footer">
        <p>
          Roomstage · <a href="/docs">API reference</a> · <a href="/api/v1/openapi.json">OpenAPI document</a>
        </p>
      </footer>
    </>
  );
}

export default function App() {
  const { account } = useLoaderData<typeof loader>();
  return (
    <Page account={account}>
      <Outlet />
    </Page>
  );
}

export function ErrorBoundary() {
  const error = useRouteError();
  // The root loader may be the part that failed, so the header falls back to the visitor view.
  const account = useRouteLoaderData<typeof loader>('root')?.account ?? null;
  return (
    <Page account={account}>
      <ErrorCard error={error} signedIn={account !== null} />
    </Page>
  );
}
