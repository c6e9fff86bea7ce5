import type { LinksFunction, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Form, Link, useLoaderData, useNavigation } from '@remix-run/react';
import { Alert } from '../components/alert.js';
import { DailyBarChart } from '../components/charts/daily-bar-chart.js';
import { KeyUsageTable } from '../components/usage/key-usage-table.js';
import usageStyles from '../styles/usage.css?url';
import { requireAccount } from '../utils/session.server.js';
import { pageMeta } from '../utils/meta.js';

export const meta: MetaFunction = () =>
  pageMeta('Usage · Roomstage', 'Images staged and credits spent per day and per API key on your Roomstage account.');
export const links: LinksFunction = () => [{ rel: 'stylesheet', href: usageStyles }];

const dollars = (cents: number) => `$${(cents / 100).toFixed(2)}`;

export async function loader({ context, request }: LoaderFunctionArgs) {
  await requireAccount(context, request);
  const params = new URL(request.url).searchParams;
  const asked = {
    from: params.get('from') || undefined,
    to: params.get('to') || undefined,
    key_id: params.get('key_id') || undefined,
  };
  const input = {
    from: asked.from,
    to: asked.to,
    key_id: asked.key_id === undefined ? undefined : Number(asked.key_id),
  };
  const keysPromise = context.trpc.keys.list();
  try {
    return { report: await context.trpc.usage.report(input), asked, problem: null, keys: (await keysPromise).keys };
  } catch (error) {
    const problem = context.describeError(error);
    if (problem.status !== 400 && problem.status !== 404) throw error;
    // A bad range or key: say so above the form and show the default report instead.
    return {
      report: await context.trpc.usage.report({}),
      asked,
      problem: problem.details?.[0]?.message ?? problem.message,
      keys: (await keysPromise).keys,
    };
  }
}

export default function Usage() {
  const { report, asked, problem, keys } = useLoaderData<typeof loader>();
  const loading = useNavigation().state === 'loading';
  const series = (pick: (day: (typeof report.daily)[number]) => number) =>
    report.daily.map((day) => ({ date: day.date, value: pick(day) }));
  const totals: Array<[string, number]> = [
    ['Images staged', report.totals.images_staged],
    ['Images enhanced', report.totals.images_enhanced],
    ['Product placements', report.totals.product_placements],
    ['Credits used', report.totals.credits_used],
    ['Credits bought', report.totals.credits_purchased],
    ['Claims issued', report.totals.claims_issued],
    ['Claims redeemed', report.totals.claims_redeemed],
  ];

  return (
    <>
      <header className="page-header">
        <p className="eyebrow">Billing</p>
        <h1>Usage</h1>
        <p className="lead">
          What your API keys did, day by day (UTC). Every credit movement is listed under{' '}
          <Link to="/billing/transactions">transactions</Link>.
        </p>
      </header>

      <section className="card" aria-labelledby="range-title">
        <h2 id="range-title" className="visually-hidden">
          Date range
        </h2>
        {problem ? <Alert tone="error">{problem} Showing the last 30 days instead.</Alert> : null}
        <Form method="get" className="usage-range">
          <div className="field">
            <label htmlFor="usage-from" className="field__label">
              From
            </label>
            <input id="usage-from" name="from" type="date" className="input" defaultValue={asked.from ?? report.from} />
          </div>
          <div className="field">
            <label htmlFor="usage-to" className="field__label">
              To
            </label>
            <input id="usage-to" name="to" type="date" className="input" defaultValue={asked.to ?? report.to} />
          </div>
          <div className="field">
            <label htmlFor="usage-key" className="field__label">
              API key
            </label>
            <select id="usage-key" name="key_id" className="input" defaultValue={asked.key_id ?? ''}>
              <option value="">All keys</option>
              {keys.map((key) => (
                <option key={key.id} value={key.id}>
                  {key.name} ({key.prefix}…)
                </option>
              ))}
            </select>
          </div>
          <button type="submit" className="button button--primary" disabled={loading}>
            {loading ? 'Loading…' : 'Show usage'}
          </button>
        </Form>
        <p className="field__hint">
          {report.from} to {report.to}, both included; at most 366 days.
        </p>
      </section>

      <section className="card" aria-labelledby="totals-title">
        <h2 id="totals-title">Totals</h2>
        <dl className="stat-grid">
          {totals.map(([label, value]) => (
            <div key={label} className="stat">
              <dt>{label}</dt>
              <dd>{value.toLocaleString('en-GB')}</dd>
            </div>
          ))}
        </dl>
      </section>

      <section className="card" aria-labelledby="daily-title">
        <h2 id="daily-title">Per day</h2>
        <div className="chart-grid">
          <DailyBarChart title="Credits used" unit="credits" points={series((day) => day.credits_used)} />
          <DailyBarChart title="Images staged" unit="images" points={series((day) => day.images_staged)} />
          <DailyBarChart title="Images enhanced" unit="images" points={series((day) => day.images_enhanced)} />
          <DailyBarChart title="Product placements" unit="images" points={series((day) => day.product_placements)} />
        </div>
      </section>

      <section className="card" aria-labelledby="keys-title">
        <h2 id="keys-title">Per API key</h2>
        <KeyUsageTable keys={report.keys} />
      </section>

      <section className="card" aria-labelledby="revenue-title">
        <h2 id="revenue-title">Ad revenue</h2>
        <p className="muted">
          From the sponsored products in images of claims you redeemed as an agent, since the start.
        </p>
        <dl className="stat-grid">
          <div className="stat">
            <dt>Impressions</dt>
            <dd>{report.ad_revenue.impressions.toLocaleString('en-GB')}</dd>
          </div>
          <div className="stat">
            <dt>Gross revenue</dt>
            <dd>{dollars(report.ad_revenue.gross_cents)}</dd>
          </div>
          <div className="stat">
            <dt>Your share (50 %)</dt>
            <dd>{dollars(report.ad_revenue.earned_cents)}</dd>
          </div>
        </dl>
      </section>
    </>
  );
}
