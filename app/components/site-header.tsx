import { Form, Link, NavLink } from '@remix-run/react';

interface Props {
  /** The signed-in account, or null for visitors. */
  account: { email: string } | null;
}

/** The bar on every page: brand, navigation, and who is signed in with a way to sign out. */
export function SiteHeader({ account }: Props) {
  return (
    <header className="site-header">
      <div className="site-header__inner">
        <Link to="/" className="brand" aria-label="Roomstage home">
          <span className="brand__mark" aria-hidden="true" />
          Roomstage
        </Link>
        <nav aria-label="Main" className="site-nav">
          <ul>
            {account ? (
              <>
                <li>
                  <NavLink to="/claims">Redeem a claim</NavLink>
                </li>
                <li>
                  <NavLink to="/gallery">Images</NavLink>
                </li>
                <li>
                  <NavLink to="/keys">API keys</NavLink>
                </li>
              </>
            ) : null}
            <li>
              {/* Swagger UI is served by Express, outside the Remix app: a full page load. */}
              <a href="/docs">API reference</a>
            </li>
          </ul>
        </nav>
        <div className="site-header__account">
          {account ? (
            <>
              <span className="site-header__email" title={account.email}>
                <span className="visually-hidden">Signed in as </span>
                {account.email}
              </span>
              <Form method="post" action="/logout">
                <button type="submit" className="button button--ghost button--small">
                  Sign out
                </button>
              </Form>
            </>
          ) : (
            <>
              <Link to="/login" className="button button--ghost button--small">
                Sign in
              </Link>
              <Link to="/signup" className="button button--primary button--small">
                Sign up
              </Link>
            </>
          )}
        </div>
      </div>
    </header>
  );
}
