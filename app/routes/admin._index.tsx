import type { LinksFunction, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Form, Link, useLoaderData, useNavigation } from '@remix-run/react';
import { Alert } from '../components/alert.js';
import { Badge } from '../components/badge.js';
import { DataTable } from '../components/data-table.js';
import usageStyles from '../styles/usage.css?url';
import { formatTimestamp } from '../utils/format.js';
import { notFoundMeta, pageMeta } from '../utils/meta.js';
import { requireOperator } from '../utils/operator.server.js';

// To anyone but an operator this page is the not-found page, down to its title.
export const meta: MetaFunction = ({ error }) =>
  error
    ? notFoundMeta()
    : pageMeta(
        'Operator console · Roomstage',
        'Find an account by e-mail, id, key prefix, claim code, image or job, and act on it.',
      );

export const links: LinksFunction = () => [{ rel: 'stylesheet', href: usageStyles }];

export async function loader({ context, request }: LoaderFunctionArgs) {
  await requireOperator(context);
  const q = new URL(request.url).searchParams.get('q')?.trim() ?? '';
  if (q === '') return { q, accounts: null, problem: null };
  try {
    return { q, accounts: (await context.trpc.admin.search({ q })).accounts, problem: null };
  } catch (error) {
    const problem = context.describeError(error);
    if (problem.status !== 400) throw error;
    return { q, accounts: null, problem: problem.details?.[0]?.message ?? problem.message };
  }
}

export default function OperatorSearch() {
  const { q, accounts, problem } = useLoaderData<typeof loader>();
  const loading = useNavigation().state === 'loading';
  return (
    <>
      <header className="page-header">
        <p className="eyebrow">Operators</p>
        <h1>Operator console</h1>
        <p className="lead">
          Find an account, then grant credits, refund, suspend or review its products there. Every change needs a reason
          and is written to the account’s audit log. Also: <Link to="/admin/payouts">payouts</Link> to pay and the{' '}
          <Link to="/admin/fleet">fleet</Link> in numbers.
        </p>
      </header>

      <section className="card" aria-labelledby="search-title">
        <h2 id="search-title">Find an account</h2>
        {problem ? <Alert tone="warning">{problem}</Alert> : null}
        <Form method="get" className="usage-range" role="search">
          <div className="field">
            <label htmlFor="admin-q" className="field__label">
              E-mail, account id, key prefix, claim code, image or job id
            </label>
            <input
              id="admin-q"
              name="q"
              type="search"
              className="input"
              defaultValue={q}
              maxLength={254}
              required
              placeholder="jane@agency.example, acc_…, sk_live_…, RS-…, img_…, job_…"
            />
          </div>
          <button type="submit" className="button button--primary" disabled={loading}>
            {loading ? 'Searching…' : 'Search'}
          </button>
        </Form>
      </section>

      {accounts ? (
        <section className="card" aria-labelledby="results-title">
          <h2 id="results-title">Accounts matching “{q}”</h2>
          <DataTable
            rows={accounts}
            columns={[
              'Account',
              'Name',
              'Owner',
              { name: 'Credits', className: 'data-table__number' },
              'Status',
              'Created (UTC)',
            ]}
            empty="No account matches. Try part of an e-mail address, a whole account id or the first characters of a key."
          >
            {(account) => (
              <tr key={account.id}>
                <td data-label="Account">
                  <Link to={`/admin/accounts/${account.id}`}>
                    <code>{account.id}</code>
                  </Link>
                </td>
                <td data-label="Name">{account.name}</td>
                <td data-label="Owner">{account.owner_email}</td>
                <td data-label="Credits" className="data-table__number">
                  {account.credits.toLocaleString('en-GB')}
                </td>
                <td data-label="Status">
                  <Badge tone={account.status === 'active' ? 'active' : 'revoked'}>{account.status}</Badge>
                </td>
                <td data-label="Created (UTC)">{formatTimestamp(account.created_at)}</td>
              </tr>
            )}
          </DataTable>
        </section>
      ) : null}
    </>
  );
}

export { RouteErrorBoundary as ErrorBoundary } from '../components/route-error-boundary.js';
