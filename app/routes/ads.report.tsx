import type { LinksFunction, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { useLoaderData } from '@remix-run/react';
import { DailyCharts } from '../components/charts/daily-charts.js';
import { DateRangeForm } from '../components/reports/date-range-form.js';
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
  const first = report.daily[0]?.date ?? '';
  const last = report.daily.at(-1)?.date ?? '';
  const impressions = report.daily.reduce((sum, day) => sum + day.impressions, 0);
  const unbilled = report.daily.reduce((sum, day) => sum + day.unbilled_impressions, 0);
  const invalid = report.daily.reduce((sum, day) => sum + day.invalid_impressions, 0);
  const spend = report.daily.reduce((sum, day) => sum + day.spend_cents, 0);

  return (
    <>
      <header className="page-header">
        <p className="eyebrow">Advertise</p>
        <h1>Ad report</h1>
        <p className="lead">
          How often your products were seen in listing photos and what it cost, per UTC day. A viewer is billed at most
          once per photo a day; bots, link previews and the listing’s own people are never billed.
        </p>
      </header>

      <DateRangeForm
        id="report"
        from={asked.from ?? first}
        to={asked.to ?? last}
        shown={{ from: first, to: last }}
        filter={{
          name: 'campaign_id',
          label: 'Campaign',
          allLabel: 'All campaigns',
          value: asked.campaign_id ?? '',
          options: campaigns.map((campaign) => ({ value: campaign.id, label: campaign.name })),
        }}
        submitLabel="Show report"
        problem={problem}
      />

      <section className="card" aria-labelledby="totals-title">
        <h2 id="totals-title">Totals</h2>
        <dl className="stat-grid">
          <div className="stat">
            <dt>Billed impressions</dt>
            <dd>{impressions.toLocaleString('en-GB')}</dd>
          </div>
          <div className="stat">
            <dt>Unbilled impressions</dt>
            <dd>{unbilled.toLocaleString('en-GB')}</dd>
          </div>
          <div className="stat">
            <dt>Invalid impressions (refunded)</dt>
            <dd>{invalid.toLocaleString('en-GB')}</dd>
          </div>
          <div className="stat">
            <dt>Spend</dt>
            <dd>{formatCents(spend)}</dd>
          </div>
        </dl>
      </section>

      <DailyCharts
        title="Per day"
        days={report.daily}
        series={[
          { title: 'Impressions', unit: 'impressions', value: (day) => day.impressions },
          { title: 'Spend', unit: 'cents', value: (day) => day.spend_cents },
        ]}
      />

      <section className="card" aria-labelledby="campaigns-title">
        <h2 id="campaigns-title">Per campaign</h2>
        <DataTable
          rows={report.campaigns}
          columns={[
            'Campaign',
            { name: 'Billed', className: 'data-table__number' },
            { name: 'Unbilled', className: 'data-table__number' },
            { name: 'Invalid', className: 'data-table__number' },
            { name: 'Spend', className: 'data-table__number' },
          ]}
          empty="No campaign was seen in this range."
        >
          {(campaign) => (
            <tr key={campaign.id}>
              <td data-label="Campaign">{campaign.name}</td>
              <td data-label="Billed" className="data-table__number">
                {campaign.impressions.toLocaleString('en-GB')}
              </td>
              <td data-label="Unbilled" className="data-table__number">
                {campaign.unbilled_impressions.toLocaleString('en-GB')}
              </td>
              <td data-label="Invalid" className="data-table__number">
                {campaign.invalid_impressions.toLocaleString('en-GB')}
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
