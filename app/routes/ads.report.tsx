import type { LinksFunction, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Form, useLoaderData, useNavigation } from '@remix-run/react';
import { Alert } from '../components/alert.js';
import { DailyBarChart } from '../components/charts/daily-bar-chart.js';
import { DataTable } from '../components/data-table.js';
import usageStyles from '../styles/usage.css?url';
import { formatCents } from '../utils/format.js';
import { pageMeta } from '../utils/meta.js';
import { requireAccount } from '../utils/session.server.js';

export const meta: MetaFunction = () =>
  pageMeta('Ad report · Advertise · Roomstage', 'Impressions and spend of your campaigns per day and per campaign.');
export const links: LinksFunction = () => [{ rel: 'stylesheet', href: usageStyles }];

export async function loader({ context, request }: LoaderFunctionArgs) {
  await requireAccount(context, request);
  const params = new URL(request.url).searchParams;
  const asked = {
    from: params.get('from') || undefined,
    to: params.get('to') || undefined,
    campaign_id: params.get('campaign_id') || undefined,
  };
  const campaignsPromise = context.trpc.ads.listCampaigns();
  try {
    return { report: await context.trpc.ads.report(asked), asked, problem: null, ...(await campaignsPromise) };
  } catch (error) {
    const problem = context.describeError(error);
    if (problem.status !== 400 && problem.status !== 404) throw error;
    // A bad range or campaign: say so above the form and show the default report instead.
    return {
      report: await context.trpc.ads.report({}),
      asked,
      problem:
        problem.status === 404 ? 'That campaign was not found.' : (problem.details?.[0]?.message ?? problem.message),
      ...(await campaignsPromise),
    };
  }
}

export default function AdReport() {
  const { report, asked, problem, campaigns } = useLoaderData<typeof loader>();
  const loading = useNavigation().state === 'loading';
  const first = report.daily[0]?.date ?? '';
  const last = report.daily.at(-1)?.date ?? '';
  const series = (pick: (day: (typeof report.daily)[number]) => number) =>
    report.daily.map((day) => ({ date: day.date, value: pick(day) }));
  const impressions = report.daily.reduce((sum, day) => sum + day.impressions, 0);
  const unbilled = report.daily.reduce((sum, day) => sum + day.unbilled_impressions, 0);
  const spend = report.daily.reduce((sum, day) => sum + day.spend_cents, 0);

  return (
    <>
      <header className="page-header">
        <p className="eyebrow">Advertise</p>
        <h1>Ad report</h1>
        <p className="lead">How often your products were seen in listing photos and what it cost, per UTC day.</p>
      </header>

      <section className="card" aria-labelledby="range-title">
        <h2 id="range-title" className="visually-hidden">
          Date range
        </h2>
        {problem ? <Alert tone="error">{problem} Showing the last 30 days instead.</Alert> : null}
        <Form method="get" className="usage-range">
          <div className="field">
            <label htmlFor="report-from" className="field__label">
              From
            </label>
            <input id="report-from" name="from" type="date" className="input" defaultValue={asked.from ?? first} />
          </div>
          <div className="field">
            <label htmlFor="report-to" className="field__label">
              To
            </label>
            <input id="report-to" name="to" type="date" className="input" defaultValue={asked.to ?? last} />
          </div>
          <div className="field">
            <label htmlFor="report-campaign" className="field__label">
              Campaign
            </label>
            <select id="report-campaign" name="campaign_id" className="input" defaultValue={asked.campaign_id ?? ''}>
              <option value="">All campaigns</option>
              {campaigns.map((campaign) => (
                <option key={campaign.id} value={campaign.id}>
                  {campaign.name}
                </option>
              ))}
            </select>
          </div>
          <button type="submit" className="button button--primary" disabled={loading}>
            {loading ? 'Loading…' : 'Show report'}
          </button>
        </Form>
        <p className="field__hint">
          {first} to {last}, both included; at most 366 days.
        </p>
      </section>

      <section className="card" aria-labelledby="totals-title">
        <h2 id="totals-title">Totals</h2>
        <dl className="stat-grid">
          <div className="stat">
            <dt>Impressions</dt>
            <dd>{impressions.toLocaleString('en-GB')}</dd>
          </div>
          <div className="stat">
            <dt>Unbilled impressions</dt>
            <dd>{unbilled.toLocaleString('en-GB')}</dd>
          </div>
          <div className="stat">
            <dt>Spend</dt>
            <dd>{formatCents(spend)}</dd>
          </div>
        </dl>
      </section>

      <section className="card" aria-labelledby="daily-title">
        <h2 id="daily-title">Per day</h2>
        <div className="chart-grid">
          <DailyBarChart title="Impressions" unit="impressions" points={series((day) => day.impressions)} />
          <DailyBarChart title="Spend" unit="cents" points={series((day) => day.spend_cents)} />
        </div>
      </section>

      <section className="card" aria-labelledby="campaigns-title">
        <h2 id="campaigns-title">Per campaign</h2>
        <DataTable
          rows={report.campaigns}
          columns={[
            'Campaign',
            { name: 'Impressions', className: 'data-table__number' },
            { name: 'Spend', className: 'data-table__number' },
          ]}
          empty="No campaign was seen in this range."
        >
          {(campaign) => (
            <tr key={campaign.id}>
              <td data-label="Campaign">{campaign.name}</td>
              <td data-label="Impressions" className="data-table__number">
                {campaign.impressions.toLocaleString('en-GB')}
              </td>
              <td data-label="Spend" className="data-table__number">
                {formatCents(campaign.spend_cents)}
              </td>
            </tr>
          )}
        </DataTable>
      </section>
    </>
  );
}

export { RouteErrorBoundary as ErrorBoundary } from '../components/route-error-boundary.js';
