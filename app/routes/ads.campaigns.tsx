import { type ActionFunctionArgs, json, type LoaderFunctionArgs, type MetaFunction } from '@remix-run/node';
import { Form, Link, useActionData, useLoaderData, useNavigation } from '@remix-run/react';
import { Alert } from '../components/alert.js';
import { Badge } from '../components/badge.js';
import { DataTable } from '../components/data-table.js';
import { EmptyState } from '../components/empty-state.js';
import { Field } from '../components/field.js';
import { PauseResumeAction } from '../components/row-action.js';
import { readDay, readDollars } from '../utils/ads-forms.server.js';
import { describeFormFailure, fieldFailure, formText, unknownIntent } from '../utils/forms.server.js';
import { formatCents, formatTimestamp } from '../utils/format.js';
import { pageMeta } from '../utils/meta.js';
import { readIntentForm, requireAccount } from '../utils/session.server.js';

export const meta: MetaFunction = () =>
  pageMeta('Campaigns · Advertise · Roomstage', 'Pay for your products to be placed in staged listing photos.');

const SHOWN_FIELDS = [
  'name',
  'product_ids',
  'cpm_cents',
  'total_budget_cents',
  'daily_budget_cents',
  'starts_at',
  'ends_at',
];

export async function loader({ context, request }: LoaderFunctionArgs) {
  await requireAccount(context, request);
  const [{ campaigns }, { products }, funds] = await Promise.all([
    context.trpc.ads.listCampaigns(),
    context.trpc.ads.listProducts(),
    context.trpc.ads.funds({ limit: 1 }),
  ]);
  return {
    campaigns,
    products: products.filter((product) => product.status === 'active' || product.status === 'paused'),
    productNames: Object.fromEntries(products.map((product) => [product.id, product.name])),
    balanceCents: funds.balance_cents,
  };
}

export async function action({ context, request }: ActionFunctionArgs) {
  const { form, intent } = await readIntentForm(context, request);
  try {
    switch (intent) {
      case 'create': {
        const { values, fieldErrors } = readDollars(form, {
          cpm: { noun: 'the price per 1 000 views' },
          total_budget: { noun: 'the total budget' },
          daily_budget: { noun: 'a daily budget (or leave it blank)', blankIsNull: true },
        });
        const name = (formText(form, 'name') ?? '').trim();
        if (!name) fieldErrors.name = 'Enter a name for the campaign.';
        const productIds = form.getAll('product_ids').filter((id): id is string => typeof id === 'string');
        if (productIds.length === 0) fieldErrors.product_ids = 'Choose at least one product to advertise.';
        if (values.cpm !== null && (values.cpm < 10 || values.cpm > 10_000))
          fieldErrors.cpm = 'The price per 1 000 views must be between $0.10 and $100.';
        if (values.total_budget !== null && values.total_budget < 100)
          fieldErrors.total_budget = 'The total budget must be at least $1.';
        if (values.daily_budget !== null && values.daily_budget < 1)
          fieldErrors.daily_budget = 'A daily budget must be at least one cent, or blank for no daily limit.';
        const startsAt = readDay(form, 'starts_at', 'the start date', fieldErrors);
        const endsAt = readDay(form, 'ends_at', 'the end date', fieldErrors, true);
        if (startsAt && endsAt && Date.parse(endsAt) <= Date.parse(startsAt))
          fieldErrors.ends_at = 'The end date must be on or after the start date.';
        if (Object.keys(fieldErrors).length > 0 || values.cpm === null || values.total_budget === null)
          return json({ intent, ...fieldFailure(fieldErrors) }, { status: 400 });
        const created = await context.trpc.ads.createCampaign({
          name,
          product_ids: productIds,
          cpm_cents: values.cpm,
          total_budget_cents: values.total_budget,
          daily_budget_cents: values.daily_budget ?? undefined,
          starts_at: startsAt,
          ends_at: endsAt,
        });
        return json({ intent, done: `Campaign “${created.name}” is ${created.status}.` } as const, { status: 201 });
      }
      case 'pause':
      case 'resume': {
        const campaign = await context.trpc.ads.updateCampaign({
          id: formText(form, 'id') ?? '',
          status: intent === 'pause' ? 'paused' : 'active',
        });
        return json({ intent, done: `Campaign “${campaign.name}” is ${campaign.status}.` } as const);
      }
      default:
        return unknownIntent();
    }
  } catch (error) {
    const failure = describeFormFailure(context, error, intent === 'create' ? SHOWN_FIELDS : []);
    // The procedure names its fields in cents; the form shows dollars under other names.
    const renamed: Record<string, string> = {};
    for (const [field, message] of Object.entries(failure.fieldErrors)) renamed[field.replace(/_cents$/, '')] = message;
    return json({ intent, ...failure, fieldErrors: renamed }, { status: failure.status });
  }
}

const STATUS_TEXT: Record<string, string> = {
  active: 'active',
  paused: 'paused',
  exhausted: 'out of budget or funds',
  scheduled: 'scheduled',
  ended: 'ended',
};

export default function Campaigns() {
  const { campaigns, products, productNames, balanceCents } = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>();
  const navigation = useNavigation();
  const busy = navigation.state === 'submitting' ? navigation.formData?.get('intent') : null;
  const failure = result && 'formError' in result ? result : null;
  const done = result && 'done' in result ? result.done : null;
  const errorFor = (field: string) =>
    failure?.intent === 'create' ? (failure.fieldErrors as Record<string, string>)[field] : undefined;

  return (
    <>
      <header className="page-header">
        <p className="eyebrow">Advertise</p>
        <h1>Campaigns</h1>
        <p className="lead">
          A campaign pays for its products to be placed in staged photos: each view of a photo showing one costs the
          price per 1 000 views divided by 1 000, taken from your <Link to="/ads/funds">funds</Link> (
          {formatCents(balanceCents)} now). Half goes to the agent whose listing it is.
        </p>
      </header>

      <div aria-live="polite" className="stack">
        {failure && failure.intent !== 'create' ? <Alert tone="error">{failure.formError}</Alert> : null}
        {done ? <Alert tone="success">{done}</Alert> : null}
      </div>

      <section className="card" aria-labelledby="new-title">
        <h2 id="new-title">New campaign</h2>
        {products.length === 0 ? (
          <EmptyState>
            Upload a product first on the <Link to="/ads/products">products page</Link>; a campaign advertises your own
            products.
          </EmptyState>
        ) : (
          <>
            {failure?.intent === 'create' ? <Alert tone="error">{failure.formError}</Alert> : null}
            <Form method="post" className="stack">
              <input type="hidden" name="intent" value="create" />
              <Field label="Campaign name" name="name" maxLength={120} error={errorFor('name')} />
              <fieldset className={`field choices${errorFor('product_ids') ? ' field--invalid' : ''}`}>
                <legend className="field__label">Products</legend>
                {products.map((product) => (
                  <label key={product.id} className="choice">
                    <input type="checkbox" name="product_ids" value={product.id} /> {product.name} ({product.brand})
                  </label>
                ))}
                {errorFor('product_ids') ? <p className="field__error">{errorFor('product_ids')}</p> : null}
              </fieldset>
              <Field
                label="Price per 1 000 views, in dollars ($0.10–$100)"
                name="cpm"
                inputMode="decimal"
                hint="Higher prices are placed first where several products fit."
                error={errorFor('cpm')}
              />
              <Field
                label="Total budget, in dollars (at least $1)"
                name="total_budget"
                inputMode="decimal"
                error={errorFor('total_budget')}
              />
              <Field
                label="Daily budget, in dollars (blank = no daily limit)"
                name="daily_budget"
                inputMode="decimal"
                error={errorFor('daily_budget')}
              />
              <Field
                label="Starts on (blank = now)"
                name="starts_at"
                type="date"
                hint="Dates are UTC days."
                error={errorFor('starts_at')}
              />
              <Field label="Ends after (blank = no end)" name="ends_at" type="date" error={errorFor('ends_at')} />
              <button type="submit" className="button button--primary" disabled={busy === 'create'}>
                {busy === 'create' ? 'Starting…' : 'Start campaign'}
              </button>
            </Form>
          </>
        )}
      </section>

      <section className="card" aria-labelledby="campaigns-title">
        <h2 id="campaigns-title">Your campaigns</h2>
        <DataTable
          rows={campaigns}
          columns={[
            'Campaign',
            'Status',
            { name: 'Price per 1 000', className: 'data-table__number' },
            { name: 'Spent', className: 'data-table__number' },
            { name: 'Impressions', className: 'data-table__number' },
            'Dates (UTC)',
            { name: 'Actions', hidden: true },
          ]}
          empty="No campaigns yet. Start one above once you have funds."
        >
          {(campaign) => (
            <tr key={campaign.id}>
              <td>
                <strong>{campaign.name}</strong>
                <br />
                <span className="muted">{campaign.product_ids.map((id) => productNames[id] ?? id).join(', ')}</span>
              </td>
              <td>
                <Badge tone={campaign.status === 'active' ? 'active' : 'revoked'}>
                  {STATUS_TEXT[campaign.status] ?? campaign.status}
                </Badge>
              </td>
              <td className="data-table__number">{formatCents(campaign.cpm_cents)}</td>
              <td className="data-table__number">
                {formatCents(campaign.spent_cents)} of {formatCents(campaign.total_budget_cents)}
                {campaign.daily_budget_cents !== null ? (
                  <>
                    <br />
                    <span className="muted">
                      today {formatCents(campaign.spent_today_cents)} of {formatCents(campaign.daily_budget_cents)}
                    </span>
                  </>
                ) : null}
              </td>
              <td className="data-table__number">
                {campaign.impressions.toLocaleString('en-GB')}
                {campaign.unbilled_impressions > 0 ? (
                  <>
                    <br />
                    <span className="muted">{campaign.unbilled_impressions.toLocaleString('en-GB')} unbilled</span>
                  </>
                ) : null}
              </td>
              <td>
                {campaign.starts_at ? formatTimestamp(campaign.starts_at) : 'From the start'}
                {' – '}
                {campaign.ends_at ? formatTimestamp(campaign.ends_at) : 'no end'}
              </td>
              <td>
                {campaign.status === 'active' || campaign.status === 'paused' ? (
                  <PauseResumeAction id={campaign.id} status={campaign.status} rowName={campaign.name} />
                ) : null}
              </td>
            </tr>
          )}
        </DataTable>
      </section>
    </>
  );
}

export { RouteErrorBoundary as ErrorBoundary } from '../components/route-error-boundary.js';
