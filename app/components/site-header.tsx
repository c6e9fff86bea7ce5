import { Form, Link, useLocation } from '@remix-run/react';
import { type ReactNode, useEffect, useRef } from 'react';

/** The account a signed-in user acts on, their role there and what the role allows (server/domain/teams/roles.ts). */
export interface CurrentAccount {
  id: string;
  name: string;
  role: string;
  permissions: readonly string[];
}

export interface HeaderAccount {
  email: string;
  /** A Roomstage operator: the account menu links the console (/admin), which is a 404 to everyone else. */
  operator: boolean;
  accounts: readonly { id: string; name: string; role: string }[];
  current: CurrentAccount;
}

interface Props {
  /** The signed-in user and their accounts, or null for visitors. */
  account: HeaderAccount | null;
}

interface NavItem {
  to: string;
  label: string;
  /** Served by Express outside the Remix app (Swagger UI): a plain link, a full page load. */
  external?: boolean;
  /** Other addresses that belong to this page (a key's webhook page belongs to Webhooks, not API keys). */
  alsoActive?: RegExp;
  /** What the role must allow for the page to be of use; hidden otherwise. None: every role. */
  permission?: string;
}

/** The roles of an account, each with its own pages (one account can be all three), and the staging settings. */
export const NAV_GROUPS: readonly {
  id: string;
  label: string;
  items: readonly NavItem[];
  /** In the bar, a menu named by the group instead of its links in a row: the three groups' links cannot share one. */
  menuInBar?: boolean;
}[] = [
  {
    id: 'staging',
    label: 'Staging',
    items: [
      { to: '/overview', label: 'Overview', permission: 'read' },
      { to: '/usage', label: 'Usage', permission: 'read' },
      { to: '/playground', label: 'Playground', permission: 'develop' },
      { to: '/docs', label: 'API docs', external: true },
    ],
  },
  {
    // The customer's words: API keys are made under Settings, then API (the 401 message and /docs say so too).
    id: 'settings',
    label: 'Settings',
    items: [
      { to: '/keys', label: 'API', permission: 'read' },
      { to: '/webhooks', label: 'Webhooks', permission: 'read', alsoActive: /^\/keys\/[^/]+\/webhook/ },
      { to: '/billing', label: 'Billing', permission: 'read' },
    ],
  },
  {
    id: 'agents',
    label: 'Agents',
    items: [
      { to: '/claims', label: 'Claims', permission: 'read_claims' },
      { to: '/gallery', label: 'Images', permission: 'read_claims' },
      { to: '/earnings', label: 'Earnings', permission: 'read_claims' },
    ],
  },
  {
    id: 'advertise',
    label: 'Advertise',
    menuInBar: true,
    items: [
      { to: '/ads/products', label: 'Products', permission: 'read' },
      { to: '/ads/campaigns', label: 'Campaigns', permission: 'read' },
      { to: '/ads/funds', label: 'Funds', permission: 'read' },
      { to: '/ads/report', label: 'Report', permission: 'read' },
    ],
  },
];

/** The groups with only the pages the role may use; a group left empty is not shown. */
function navGroupsFor(permissions: readonly string[]) {
  return NAV_GROUPS.map((group) => ({
    ...group,
    items: group.items.filter((item) => !item.permission || permissions.includes(item.permission)),
  })).filter((group) => group.items.length > 0);
}

/** The nav item a path belongs to: one claiming it through `alsoActive` first, else the one whose address starts it. */
function currentItemFor(pathname: string): string | null {
  const items = NAV_GROUPS.flatMap((group) => group.items);
  const claimed = items.find((item) => item.alsoActive?.test(pathname));
  if (claimed) return claimed.to;
  return items.find((item) => pathname === item.to || pathname.startsWith(`${item.to}/`))?.to ?? null;
}

function NavLinkItem({ item, current }: { item: NavItem; current: boolean }) {
  return (
    <li>
      {item.external ? (
        <a href={item.to}>{item.label}</a>
      ) : (
        <Link to={item.to} prefetch="intent" aria-current={current ? 'page' : undefined}>
          {item.label}
        </Link>
      )}
    </li>
  );
}

/** The grouped links; `idPrefix` keeps the group labels' ids unique when the list shows twice (bar and phone menu). */
function NavGroups(props: { idPrefix: string; bar?: boolean; permissions: readonly string[] }) {
  const { idPrefix, bar = false, permissions } = props;
  const current = currentItemFor(useLocation().pathname);
  return (
    <>
      {navGroupsFor(permissions).map((group) =>
        bar && group.menuInBar ? (
          <div className="nav-group" key={group.id}>
            <Disclosure
              className={`nav-group__menu${group.items.some((item) => item.to === current) ? ' is-current' : ''}`}
              summary={<span id={`${idPrefix}-${group.id}`}>{group.label}</span>}
            >
              <ul aria-labelledby={`${idPrefix}-${group.id}`}>
                {group.items.map((item) => (
                  <NavLinkItem key={item.to} item={item} current={item.to === current} />
                ))}
              </ul>
            </Disclosure>
          </div>
        ) : (
          <div className="nav-group" key={group.id}>
            <span className="nav-group__label" id={`${idPrefix}-${group.id}`}>
              {group.label}
            </span>
            <ul aria-labelledby={`${idPrefix}-${group.id}`}>
              {group.items.map((item) => (
                <NavLinkItem key={item.to} item={item} current={item.to === current} />
              ))}
            </ul>
          </div>
        ),
      )}
    </>
  );
}

/**
 * A `<details>` menu: opens and closes with the keyboard without JavaScript; once hydrated it also closes on Escape,
 * on a click outside and after navigating.
 */
function Disclosure(props: { className: string; summary: ReactNode; summaryLabel?: string; children: ReactNode }) {
  const { className, summary, summaryLabel, children } = props;
  const ref = useRef<HTMLDetailsElement>(null);
  const location = useLocation();
  // biome-ignore lint/correctness/useExhaustiveDependencies: the location is the trigger, read by no code inside
  useEffect(() => {
    ref.current?.removeAttribute('open');
  }, [location.pathname, location.search, location.key]);
  useEffect(() => {
    const details = ref.current;
    if (!details) return;
    const onKey = (event: KeyboardEvent) => {
      if (event.key === 'Escape' && details.open) {
        details.open = false;
        details.querySelector('summary')?.focus();
      }
    };
    const onClick = (event: MouseEvent) => {
      if (details.open && !details.contains(event.target as Node)) details.open = false;
    };
    document.addEventListener('keydown', onKey);
    document.addEventListener('click', onClick);
    return () => {
      document.removeEventListener('keydown', onKey);
      document.removeEventListener('click', onClick);
    };
  }, []);
  return (
    <details ref={ref} className={`disclosure ${className}`}>
      <summary aria-label={summaryLabel}>{summary}</summary>
      <div className="disclosure__panel">{children}</div>
    </details>
  );
}

/**
 * For a user in several accounts: one button per account (a form post, so it works without JavaScript); the
 * session then acts on the chosen account, and the page reloads in it.
 */
function AccountSwitcher({ account }: { account: HeaderAccount }) {
  const { pathname, search } = useLocation();
  return (
    <Form method="post" action="/switch-account" className="account-switcher">
      <input type="hidden" name="redirectTo" value={pathname + search} />
      <p className="account-switcher__title" id="account-switcher-title">
        Accounts
      </p>
      <ul aria-labelledby="account-switcher-title">
        {account.accounts.map((item) => {
          const current = item.id === account.current.id;
          return (
            <li key={item.id}>
              <button
                type="submit"
                name="account_id"
                value={item.id}
                className="button button--ghost button--small button--block"
                aria-current={current ? 'true' : undefined}
                disabled={current}
              >
                {item.name}{' '}
                <span className="account-switcher__role">
                  ({item.role}
                  {current ? ', current' : ''})
                </span>
              </button>
            </li>
          );
        })}
      </ul>
    </Form>
  );
}

/** The bar on every page: brand, navigation grouped by role, and the account menu. One row at every width. */
export function SiteHeader({ account }: Props) {
  return (
    <header className="site-header">
      <div className="site-header__inner">
        <Link to={account ? '/overview' : '/'} className="brand" aria-label="Roomstage home">
          <span className="brand__mark" aria-hidden="true" />
          Roomstage
        </Link>
        {account ? (
          <>
            <nav aria-label="Main" className="site-nav site-nav--bar">
              <NavGroups idPrefix="nav" bar permissions={account.current.permissions} />
            </nav>
            <Disclosure
              className="site-nav site-nav--compact"
              summary={<span aria-hidden="true">☰ Menu</span>}
              summaryLabel="Menu: all pages"
            >
              <nav aria-label="Main (compact)">
                <NavGroups idPrefix="menu" permissions={account.current.permissions} />
              </nav>
            </Disclosure>
            <Disclosure
              className="account-menu"
              summary={
                // Named by its text, which starts with the word people see ("Account"), as speech input expects.
                <>
                  <span className="account-menu__avatar" aria-hidden="true">
                    {account.email.slice(0, 1).toUpperCase()}
                  </span>
                  <span className="account-menu__label">Account</span>
                  <span className="visually-hidden"> menu for {account.email}</span>
                </>
              }
            >
              <p className="account-menu__email">
                Signed in as <strong title={account.email}>{account.email}</strong>
              </p>
              {account.accounts.length > 1 ? <AccountSwitcher account={account} /> : null}
              <ul className="account-menu__links">
                {account.current.permissions.includes('read') ? (
                  <>
                    <li>
                      <Link to="/overview">Overview</Link>
                    </li>
                    <li>
                      <Link to="/keys">Settings → API</Link>
                    </li>
                  </>
                ) : null}
                {account.current.permissions.includes('read') ? (
                  <li>
                    <Link to="/team">Team</Link>
                  </li>
                ) : null}
                <li>
                  <Link to="/security">Security</Link>
                </li>
                {account.current.permissions.includes('read_audit') ? (
                  <li>
                    <Link to="/audit-log">Audit log</Link>
                  </li>
                ) : null}
                <li>
                  <a href="/docs">API docs</a>
                </li>
                {account.operator ? (
                  <li>
                    <Link to="/admin">Operator console</Link>
                  </li>
                ) : null}
              </ul>
              <Form method="post" action="/logout">
                <button type="submit" className="button button--ghost button--small button--block">
                  Sign out
                </button>
              </Form>
            </Disclosure>
          </>
        ) : (
          <>
            <nav aria-label="Main" className="site-nav site-nav--visitor">
              <ul>
                <li>
                  <a href="/docs">API docs</a>
                </li>
              </ul>
            </nav>
            <div className="site-header__account">
              <Link to="/login" className="button button--ghost button--small">
                Sign in
              </Link>
              <Link to="/signup" className="button button--primary button--small">
                Sign up
              </Link>
            </div>
          </>
        )}
      </div>
    </header>
  );
}
