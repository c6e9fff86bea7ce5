import {
  type ActionFunctionArgs,
  json,
  type LinksFunction,
  type LoaderFunctionArgs,
  type MetaFunction,
} from '@remix-run/node';
import { Form, Link, useActionData, useLoaderData, useNavigation } from '@remix-run/react';
import { Alert } from '../components/alert.js';
import { Badge } from '../components/badge.js';
import { DailyCharts } from '../components/charts/daily-charts.js';
import { DataTable } from '../components/data-table.js';
import { Field } from '../components/field.js';
import usageStyles from '../styles/usage.css?url';
import { readDollars } from '../utils/ads-forms.server.js';
import { describeFormFailure, fieldFailure, unknownIntent } from '../utils/forms.server.js';
import { formatCents, formatTimestamp } from '../utils/format.js';
import { pageMeta } from '../utils/meta.js';
import { readIntentForm, requireAccount } from '../utils/session.server.js';

export const meta: MetaFunction = () =>
  pageMeta('Earnings · Roomstage', 'What sponsored products in your listing photos earned you, and your payouts.');
export const links: LinksFunction = () => [{ rel: 'stylesheet', href: usageStyles }];

/** The smallest payout the API accepts, in cents. */
const MIN_PAYOUT_CENTS = 1_000;

export async function loader({ context, request }: LoaderFunctionArgs) {
  await requireAccount(context, request);
  const [earnings, { payouts }] = await Promise.all([
    context.trpc.earnings.report({}),
    context.trpc.earnings.payouts(),
  ]);
  return { earnings, payouts };
}

export async function action({ context, request }: ActionFunctionArgs) {
  const { form, intent } = await readIntentForm(context, request);
  if (intent !== 'payout') return unknownIntent();
  const { values, fieldErrors } = readDollars(form, { amount: { noun: 'the amount to pay out' } });
  if (values.amount !== null && values.amount < MIN_PAYOUT_CENTS)
    fieldErrors.amount = 'A payout must be at least $10.00.';
  if (values.amount === null || Object.keys(fieldErrors).length > 0)
    return json({ intent, ...fieldFailure(fieldErrors) }, { status: 400 });
  try {
    const payout = await context.trpc.earnings.requestPayout({ amount_cents: values.amount });
    return json({ intent, done: `Payout of ${formatCents(payout.amount_cents)} requested.` } as const, { status: 201 });
  } catch (error) {
    const failure = describeFormFailure(context, error, []);
    const formError =
      failure.status === 409
        ? 'That is more than your available earnings (held earnings are not available yet). Ask for less.'
        : failure.formError;
    return json({ intent, ...failure, formError }, { status: failure.status });
  }
}

const PAYOUT_TONE = { requested: 'test', paid: 'active', rejected: 'revoked' } as const;

export default function Earnings() {
  const { earnings, payouts } = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>();
  const busy = useNavigation().state === 'submitting';
  const failure = result && 'formError' in result ? result : null;
  const done = result && 'done' in result ? result.done : null;
  const canPayOut = earnings.available_cents >= MIN_PAYOUT_CENTS;

  return (
    <>
      <header className="page-header">
        <p className="eyebrow">Agents</p>
        <h1>Earnings</h1>
        <p className="lead">
          Half of what advertisers pay when their products are seen in photos of the <Link to="/claims">claims</Link>{' '}
          you redeemed is yours. Each share is held for a few days (time to find invalid traffic such as bots or click
          farms, which earns nothing), then it is available: ask for a payout from $10.
        </p>
      </header>

      <section className="card" aria-labelledby="balances-title">
        <h2 id="balances-title">Balances</h2>
        <dl className="stat-grid">
          <div className="stat">
            <dt>Available</dt>
            <dd>{formatCents(earnings.available_cents)}</dd>
          </div>
          <div className="stat">
            <dt>Held</dt>
            <dd>{formatCents(earnings.pending_cents)}</dd>
          </div>
          <div className="stat">
            <dt>Requested</dt>
            <dd>{formatCents(earnings.requested_cents)}</dd>
          </div>
          <div className="stat">
            <dt>Paid</dt>
            <dd>{formatCents(earnings.paid_cents)}</dd>
          </div>
        </dl>
      </section>

      <section className="card" aria-labelledby="payout-title">
        <h2 id="payout-title">Request a payout</h2>
        <div aria-live="polite" className="stack">
          {failure ? <Alert tone="error">{failure.formError}</Alert> : null}
          {done ? <Alert tone="success">{done}</Alert> : null}
        </div>
        <Form method="post" className="stack">
          <input type="hidden" name="intent" value="payout" />
          <Field
            label="Amount in dollars (at least $10)"
            name="amount"
            inputMode="decimal"
            defaultValue={canPayOut ? (earnings.available_cents / 100).toFixed(2) : ''}
            hint={`Up to ${formatCents(earnings.available_cents)} is available${earnings.pending_cents > 0 ? `; ${formatCents(earnings.pending_cents)} more is held until its hold period ends` : ''}.`}
            error={(failure?.fieldErrors as Record<string, string> | undefined)?.amount}
          />
          <button type="submit" className="button button--primary" disabled={busy}>
            {busy ? 'Requesting…' : 'Request payout'}
          </button>
        </Form>
      </section>

      <DailyCharts
        title="Last 30 days"
        days={earnings.daily}
        series={[
          { title: 'Impressions', unit: 'impressions', value: (day) => day.impressions },
          { title: 'Earned', unit: 'cents', value: (day) => day.earned_cents },
        ]}
      />

      <section className="card" aria-labelledby="images-title">
        <h2 id="images-title">Per image</h2>
        <DataTable
          rows={earnings.images}
          columns={[
            'Image',
            { name: 'Impressions', className: 'data-table__number' },
            { name: 'Invalid', className: 'data-table__number' },
            { name: 'Earned', className: 'data-table__number' },
          ]}
          empty="Nothing earned yet. Sponsored products in the images of claims you redeem earn as they are seen."
        >
          {(image) => (
            <tr key={image.image_id}>
              <td data-label="Image">
                <code>{image.image_id}</code>
              </td>
              <td data-label="Impressions" className="data-table__number">
                {image.impressions.toLocaleString('en-GB')}
              </td>
              <td data-label="Invalid" className="data-table__number">
                {image.invalid_impressions.toLocaleString('en-GB')}
              </td>
              <td data-label="Earned" className="data-table__number">
                {formatCents(image.earned_cents)}
              </td>
            </tr>
          )}
        </DataTable>
      </section>

      <section className="card" aria-labelledby="payouts-title">
        <h2 id="payouts-title">Payouts</h2>
        <DataTable
          rows={payouts}
          columns={['Requested (UTC)', { name: 'Amount', className: 'data-table__number' }, 'Status', 'Paid (UTC)']}
          empty="No payouts yet."
        >
          {(payout) => (
            <tr key={payout.id}>
              <td data-label="Requested (UTC)">{formatTimestamp(payout.created_at)}</td>
              <td data-label="Amount" className="data-table__number">
                {formatCents(payout.amount_cents)}
              </td>
              <td data-label="Status">
                <Badge tone={PAYOUT_TONE[payout.status]}>{payout.status}</Badge>
              </td>
              <td data-label="Paid (UTC)">{payout.paid_at ? formatTimestamp(payout.paid_at) : '—'}</td>
            </tr>
          )}
        </DataTable>
      </section>
    </>
  );
}

export { RouteErrorBoundary as ErrorBoundary } from '../components/route-error-boundary.js';
