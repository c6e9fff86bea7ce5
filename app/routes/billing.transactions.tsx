import type { LinksFunction, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Link, useLoaderData } from '@remix-run/react';
import { Alert } from '../components/alert.js';
import { TransactionsTable } from '../components/billing/transactions-table.js';
import usageStyles from '../styles/usage.css?url';
import { requireAccount } from '../utils/session.server.js';
import { pageMeta } from '../utils/meta.js';

export const meta: MetaFunction = () =>
  pageMeta('Transactions · Roomstage', 'Every credit purchase, charge and refund on your Roomstage account.');
export const links: LinksFunction = () => [{ rel: 'stylesheet', href: usageStyles }];

export async function loader({ context, request }: LoaderFunctionArgs) {
  await requireAccount(context, request);
  const startingAfter = new URL(request.url).searchParams.get('starting_after') || undefined;
  try {
    return {
      page: await context.trpc.usage.transactions({ limit: 25, starting_after: startingAfter }),
      paged: startingAfter !== undefined,
      problem: null,
    };
  } catch (error) {
    const problem = context.describeError(error);
    if (problem.status !== 400 && problem.status !== 404) throw error;
    return {
      page: await context.trpc.usage.transactions({ limit: 25 }),
      paged: false,
      problem: 'That page no longer exists; here are your newest transactions.',
    };
  }
}

export default function Transactions() {
  const { page, paged, problem } = useLoaderData<typeof loader>();
  return (
    <>
      <header className="page-header">
        <p className="eyebrow">Billing</p>
        <h1>Transactions</h1>
        <p className="lead">
          Every change to your credit balance, newest first. See <Link to="/usage">usage</Link> for totals per day and
          per key.
        </p>
      </header>
      <section className="card" aria-labelledby="transactions-title">
        <h2 id="transactions-title">{paged ? 'Older transactions' : 'Latest transactions'}</h2>
        {problem ? <Alert tone="warning">{problem}</Alert> : null}
        <TransactionsTable
          transactions={page.transactions}
          hasMore={page.has_more}
          basePath="/billing/transactions"
          paged={paged}
        />
      </section>
    </>
  );
}
