import type { LinksFunction, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Form, Link, useLoaderData, useNavigation } from '@remix-run/react';
import { Alert } from '../components/alert.js';
import { CursorPager } from '../components/cursor-pager.js';
import { AuditTable } from '../components/security/audit-table.js';
import securityStyles from '../styles/security.css?url';
import { AUDIT_ACTION_LABELS, auditActionLabel } from '../utils/audit-actions.js';
import { pageMeta } from '../utils/meta.js';
import { requireAccount } from '../utils/session.server.js';

export const meta: MetaFunction = () =>
  pageMeta(
    'Audit log · Roomstage',
    'Who signed in, changed a password, a key, a webhook or a setting, and bought credits, from where.',
  );
export const links: LinksFunction = () => [{ rel: 'stylesheet', href: securityStyles }];

const PAGE_SIZE = 25;

export async function loader({ context, request }: LoaderFunctionArgs) {
  await requireAccount(context, request);
  const params = new URL(request.url).searchParams;
  // null, not undefined, for "no filter": the loader's JSON keeps the key either way.
  const filters = { action: params.get('action')?.trim() || null, actor: params.get('actor')?.trim() || null };
  const startingAfter = params.get('starting_after') || undefined;
  try {
    return {
      log: await context.trpc.security.auditLog({
        limit: PAGE_SIZE,
        starting_after: startingAfter,
        action: filters.action ?? undefined,
        actor: filters.actor ?? undefined,
      }),
      filters,
      paged: startingAfter !== undefined,
      problem: null,
    };
  } catch (error) {
    const problem = context.describeError(error);
    if (problem.status !== 400 && problem.status !== 404) throw error;
    // A stale page link or a hand-edited filter: say so and show the newest entries instead.
    return {
      log: await context.trpc.security.auditLog({ limit: PAGE_SIZE }),
      filters: { action: null, actor: null },
      paged: false,
      problem: 'That page or filter no longer works; here are the newest entries.',
    };
  }
}

export default function AuditLog() {
  const { log, filters, paged, problem } = useLoaderData<typeof loader>();
  const loading = useNavigation().state === 'loading';
  const filtered = filters.action !== null || filters.actor !== null;
  // An action in the address that the list does not name still shows as selected.
  const actionChoices = Object.keys(AUDIT_ACTION_LABELS);
  if (filters.action && !actionChoices.includes(filters.action)) actionChoices.push(filters.action);

  return (
    <>
      <header className="page-header">
        <p className="eyebrow">Account</p>
        <h1>Audit log</h1>
        <p className="lead">
          Sign-ins, password and two-factor changes, API keys, webhooks, settings and purchases: who did it, from which
          address and browser, newest first. Your own security settings are on the <Link to="/security">Security</Link>{' '}
          page.
        </p>
      </header>

      <section className="card" aria-labelledby="audit-filter-title">
        <h2 id="audit-filter-title" className="visually-hidden">
          Filter
        </h2>
        {problem ? <Alert tone="warning">{problem}</Alert> : null}
        <Form method="get" className="audit-filters">
          <div className="field">
            <label htmlFor="audit-action" className="field__label">
              Action
            </label>
            <select id="audit-action" name="action" className="input" defaultValue={filters.action ?? ''}>
              <option value="">All actions</option>
              {actionChoices.map((action) => (
                <option key={action} value={action}>
                  {auditActionLabel(action)}
                </option>
              ))}
            </select>
          </div>
          <div className="field">
            <label htmlFor="audit-actor" className="field__label">
              Actor
            </label>
            <input
              id="audit-actor"
              name="actor"
              className="input"
              defaultValue={filters.actor ?? ''}
              maxLength={254}
              placeholder="E-mail, key prefix or id"
            />
          </div>
          <button type="submit" className="button button--primary" disabled={loading}>
            {loading ? 'Loading…' : 'Filter'}
          </button>
          {filtered ? (
            <Link to="/audit-log" className="button button--ghost">
              Clear filters
            </Link>
          ) : null}
        </Form>
      </section>

      <section className="card" aria-labelledby="audit-title">
        <h2 id="audit-title">{paged ? 'Older entries' : 'Latest entries'}</h2>
        <AuditTable
          entries={log.entries}
          empty={
            filtered
              ? 'No entries match these filters.'
              : paged
                ? 'No older entries.'
                : 'Nothing recorded yet. Sign-ins, key changes and purchases appear here as they happen.'
          }
        />
        <CursorPager
          label="Audit log pages"
          basePath="/audit-log"
          keep={{ action: filters.action ?? undefined, actor: filters.actor ?? undefined }}
          oldestId={log.entries.at(-1)?.id}
          hasMore={log.has_more}
          paged={paged}
        />
      </section>
    </>
  );
}

export { RouteErrorBoundary as ErrorBoundary } from '../components/route-error-boundary.js';
