import type { LinksFunction, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Link, useLoaderData } from '@remix-run/react';
import { DailyCharts } from '../components/charts/daily-charts.js';
import { DateRangeForm } from '../components/reports/date-range-form.js';
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

      <DateRangeForm
        id="usage"
        from={asked.from ?? report.from}
        to={asked.to ?? report.to}
        shown={report}
        filter={{
          name: 'key_id',
          label: 'API key',
          allLabel: 'All keys',
          value: asked.key_id ?? '',
          options: keys.map((key) => ({ value: String(key.id), label: `${key.name} (${key.prefix}…)` })),
        }}
        submitLabel="Show usage"
        problem={problem}
      />

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

      <DailyCharts
        title="Per day"
        days={report.daily}
        series={[
          { title: 'Credits used', unit: 'credits', value: (day) => day.credits_used },
          { title: 'Images staged', unit: 'images', value: (day) => day.images_staged },
          { title: 'Images enhanced', unit: 'images', value: (day) => day.images_enhanced },
          { title: 'Product placements', unit: 'images', value: (day) => day.product_placements },
        ]}
      />

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
