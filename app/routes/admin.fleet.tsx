import type { LinksFunction, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Link, useLoaderData } from '@remix-run/react';
import { DailyCharts } from '../components/charts/daily-charts.js';
import { DataTable } from '../components/data-table.js';
import usageStyles from '../styles/usage.css?url';
import { formatCents } from '../utils/format.js';
import { notFoundMeta, pageMeta } from '../utils/meta.js';
import { requireOperator } from '../utils/operator.server.js';

export const meta: MetaFunction = ({ error }) =>
  error
    ? notFoundMeta()
    : pageMeta(
        'Fleet · Operator console · Roomstage',
        'The service in numbers: images by engine, failures, money, webhooks and holds.',
      );
export const links: LinksFunction = () => [{ rel: 'stylesheet', href: usageStyles }];

const PERIODS = [
  { days: 1, label: 'Today' },
  { days: 7, label: '7 days' },
  { days: 30, label: '30 days' },
] as const;

export async function loader({ context, request }: LoaderFunctionArgs) {
  await requireOperator(context);
  const asked = Number(new URL(request.url).searchParams.get('days'));
  // Only the periods offered; anything else in the address shows the default week.
  const days = PERIODS.some((period) => period.days === asked) ? asked : 7;
  return { days, fleet: await context.trpc.admin.fleet({ days }) };
}

const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);
const percent = (part: number, whole: number) =>
  whole === 0 ? '—' : `${((part / whole) * 100).toLocaleString('en-GB', { maximumFractionDigits: 1 })} %`;
const count = (n: number) => n.toLocaleString('en-GB');

export default function OperatorFleet() {
  const { days, fleet } = useLoaderData<typeof loader>();
  const { daily } = fleet;
  const engines = [
    ...new Set(daily.flatMap((day) => [...Object.keys(day.images_by_engine), ...Object.keys(day.failures_by_engine)])),
  ].sort();
  const codes = [...new Set(daily.flatMap((day) => Object.keys(day.failures_by_code)))].sort();
  const madeBy = (engine: string) => sum(daily.map((day) => day.images_by_engine[engine] ?? 0));
  const failedBy = (engine: string) => sum(daily.map((day) => day.failures_by_engine[engine] ?? 0));
  const imagesOf = (day: (typeof daily)[number]) => sum(Object.values(day.images_by_engine));
  const images = sum(daily.map(imagesOf));
  const failures = sum(daily.map((day) => day.failures));
  const deliveries = sum(daily.map((day) => day.webhook_deliveries));
  const deliveryFailures = sum(daily.map((day) => day.webhook_failures));
  const latency = (pick: (day: (typeof daily)[number]) => number | null) => {
    const known = daily.map(pick).filter((value): value is number => value !== null);
    return known.length === 0 ? 'Not recorded' : `${Math.max(...known).toLocaleString('en-GB')} ms`;
  };
  const totals: Array<[string, string]> = [
    ['Images made', count(images)],
    ['Failed requests', count(failures)],
    ['Failure rate', percent(failures, images + failures)],
    ['Engine p50 (worst day)', latency((day) => day.engine_p50_ms)],
    ['Engine p95 (worst day)', latency((day) => day.engine_p95_ms)],
    ['Credits sold', count(sum(daily.map((day) => day.credits_sold)))],
    ['Ad spend', formatCents(sum(daily.map((day) => day.ad_spend_cents)))],
    ['Earnings owed', formatCents(sum(daily.map((day) => day.earnings_owed_cents)))],
    ['Webhook failure rate', percent(deliveryFailures, deliveries)],
    ['Webhook backlog (now)', count(fleet.webhook_backlog)],
    ['Holds outstanding (now)', count(fleet.holds_outstanding)],
  ];

  return (
    <>
      <header className="page-header">
        <p className="eyebrow">
          <Link to="/admin">Operator console</Link>
        </p>
        <h1>Fleet</h1>
        <p className="lead">
          The service by UTC day, today included. A failed request is one the engine or the server failed (and
          refunded); engine latencies are those of the stored images' engine calls.
        </p>
      </header>

      <nav aria-label="Period">
        <ul className="subnav">
          {PERIODS.map((period) => (
            <li key={period.days}>
              <Link
                to={`/admin/fleet?days=${period.days}`}
                className={`button button--small${period.days === days ? ' button--primary' : ' button--ghost'}`}
                aria-current={period.days === days ? 'page' : undefined}
              >
                {period.label}
              </Link>
            </li>
          ))}
        </ul>
      </nav>

      <section className="card" aria-labelledby="totals-title">
        <h2 id="totals-title">{days === 1 ? 'Today' : `The last ${days} days`}</h2>
        <dl className="stat-grid">
          {totals.map(([label, value]) => (
            <div key={label} className="stat">
              <dt>{label}</dt>
              <dd>{value}</dd>
            </div>
          ))}
        </dl>
      </section>

      <section className="card" aria-labelledby="engines-title">
        <h2 id="engines-title">Images by engine and outcome</h2>
        <DataTable
          rows={engines}
          columns={[
            'Engine',
            { name: 'Images', className: 'data-table__number' },
            { name: 'Failed', className: 'data-table__number' },
            { name: 'Failure rate', className: 'data-table__number' },
          ]}
          empty="No images in this period."
        >
          {(engine) => (
            <tr key={engine}>
              <td data-label="Engine">{engine}</td>
              <td data-label="Images" className="data-table__number">
                {count(madeBy(engine))}
              </td>
              <td data-label="Failed" className="data-table__number">
                {count(failedBy(engine))}
              </td>
              <td data-label="Failure rate" className="data-table__number">
                {percent(failedBy(engine), madeBy(engine) + failedBy(engine))}
              </td>
            </tr>
          )}
        </DataTable>
        {codes.length > 0 ? (
          <p className="muted">
            Failures by code:{' '}
            {codes
              .map((code) => `${code} ${count(sum(daily.map((day) => day.failures_by_code[code] ?? 0)))}`)
              .join(', ')}
            .
          </p>
        ) : null}
      </section>

      <DailyCharts
        title="Per day"
        days={daily}
        series={[
          { title: 'Images made', unit: 'images', value: imagesOf },
          { title: 'Failed requests', unit: 'requests', value: (day) => day.failures },
          { title: 'Credits sold', unit: 'credits', value: (day) => day.credits_sold },
          { title: 'Ad spend', unit: 'cents', value: (day) => day.ad_spend_cents },
          { title: 'Earnings owed', unit: 'cents', value: (day) => day.earnings_owed_cents },
          { title: 'Webhook failures', unit: 'deliveries', value: (day) => day.webhook_failures },
        ]}
      />
    </>
  );
}

export { RouteErrorBoundary as ErrorBoundary } from '../components/route-error-boundary.js';
