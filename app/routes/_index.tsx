import { type LoaderFunctionArgs, type MetaFunction, redirect } from '@remix-run/node';
import { Link, useRouteLoaderData, useSearchParams } from '@remix-run/react';
import { Alert } from '../components/alert.js';
import type { loader as rootLoader } from '../root.js';
import { getAccount } from '../utils/session.server.js';
import { pageMeta } from '../utils/meta.js';

export const meta: MetaFunction = () =>
  pageMeta(
    'Roomstage · Virtual staging API for room photos',
    'Roomstage stages empty room photos with furniture through a REST API: sign up, create an API key and send a photo.',
  );

/** Signed in, the home page is the dashboard's overview; visitors see what Roomstage is. */
export async function loader({ context }: LoaderFunctionArgs) {
  if (await getAccount(context)) throw redirect('/overview');
  return null;
}

export default function Index() {
  // The root loader already knows whether someone is signed in.
  const account = useRouteLoaderData<typeof rootLoader>('root')?.account ?? null;
  const [search] = useSearchParams();
  return (
    <>
      {search.get('signed_out') && !account ? (
        <Alert tone="success">You are signed out. Sign in again whenever you like.</Alert>
      ) : null}
      <section className="hero" aria-labelledby="hero-title">
        <p className="eyebrow">Virtual staging</p>
        <h1 id="hero-title">Empty rooms, furnished in seconds.</h1>
        <p className="lead">
          Roomstage stages photos of empty rooms in ten interior styles, enhances them to 4K and hands the results to
          estate agents with a simple claim code.
        </p>
        <div className="actions">
          {account ? (
            <>
              <Link to="/overview" className="button button--primary button--large">
                Go to your dashboard
              </Link>
              <a href="/docs" className="button button--ghost button--large">
                Read the API reference
              </a>
            </>
          ) : (
            <>
              <Link to="/signup" className="button button--primary button--large">
                Create an account
              </Link>
              <Link to="/login" className="button button--ghost button--large">
                Sign in
              </Link>
            </>
          )}
        </div>
        {account ? (
          <p className="muted">
            Signed in as <strong>{account.email}</strong>.
          </p>
        ) : null}
      </section>

      <div className="grid grid--two">
        <section className="card" aria-labelledby="for-stagers">
          <h2 id="for-stagers">For staging companies</h2>
          <p>
            Call the REST API with an API key: send room photos, get staged images and a claim code back. Every
            account’s first key comes with 10 free credits.
          </p>
          <ol className="steps">
            <li>Create an account and an API key.</li>
            <li>
              <code>POST /api/v1/stage</code> with <code>Authorization: Bearer sk_live_…</code>
            </li>
            <li>Give the claim code to the estate agent.</li>
          </ol>
          <p>
            <a href="/docs">API reference</a> · <a href="/api/v1/openapi.json">OpenAPI document</a>
          </p>
        </section>
        <section className="card" aria-labelledby="for-agents">
          <h2 id="for-agents">For estate agents</h2>
          <p>
            Received a code like <code>RS-7K3M9Q2X</code>? Sign in to this dashboard and redeem it to collect the staged
            photos of your listing. Redeeming is free.
          </p>
          <p>
            {account ? (
              <Link to="/overview">Open your dashboard</Link>
            ) : (
              <>
                <Link to="/signup">Sign up</Link> or <Link to="/login">sign in</Link> to get started.
              </>
            )}
          </p>
        </section>
      </div>
    </>
  );
}
