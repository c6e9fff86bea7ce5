import {
  type ActionFunctionArgs,
  json,
  type LoaderFunctionArgs,
  type MetaFunction,
  redirectDocument,
} from '@remix-run/node';
import { Form, Link, useActionData, useLoaderData, useNavigation } from '@remix-run/react';
import { Alert } from '../components/alert.js';
import { CONFIRMATION_SENT, ConfirmEmailNotice } from '../components/confirm-email-notice.js';
import { CursorPager } from '../components/cursor-pager.js';
import { DataTable } from '../components/data-table.js';
import { Field } from '../components/field.js';
import { readDollars } from '../utils/ads-forms.server.js';
import { describeFormFailure, fieldFailure, unknownIntent, refusedForm } from '../utils/forms.server.js';
import { formatCents, formatTimestamp } from '../utils/format.js';
import { pageMeta } from '../utils/meta.js';
import { readIntentForm, requireAccount } from '../utils/session.server.js';

export const meta: MetaFunction = () =>
  pageMeta('Funds · Advertise · Roomstage', 'Your advertising funds: buy more and see every purchase and spend.');

const PAGE_SIZE = 25;
const REASON_TEXT = { purchase: 'Purchase', spend: 'Campaign spend', adjustment: 'Adjustment' } as const;

export async function loader({ context, request }: LoaderFunctionArgs) {
  const { email } = await requireAccount(context, request);
  const { folder: mailFolder } = await context.trpc.auth.mailDelivery();
  const url = new URL(request.url);
  const startingAfter = url.searchParams.get('starting_after') || undefined;
  // Back from checkout: asking for the session credits a paid purchase once, if the payment's event has not.
  const sessionId = url.searchParams.get('session_id');
  const purchase = sessionId
    ? await context.trpc.billing.checkoutStatus({ session_id: sessionId }).catch(() => null)
    : null;
  try {
    return {
      funds: await context.trpc.ads.funds({ limit: PAGE_SIZE, starting_after: startingAfter }),
      paged: startingAfter !== undefined,
      problem: null,
      purchase,
      email,
      mailFolder,
    };
  } catch (error) {
    if (context.describeError(error).status !== 404 && context.describeError(error).status !== 400) throw error;
    return {
      funds: await context.trpc.ads.funds({ limit: PAGE_SIZE }),
      paged: false,
      problem: 'That page no longer exists; here are your newest entries.',
      purchase,
      email,
      mailFolder,
    };
  }
}

export async function action({ context, request }: ActionFunctionArgs) {
  const { form, intent } = await readIntentForm(context, request);
  if (intent === 'resend-verification') {
    try {
      await context.trpc.auth.resendVerification();
      return json({ intent: 'buy', done: CONFIRMATION_SENT } as const);
    } catch (error) {
      const failure = describeFormFailure(context, error, []);
      return json({ intent: 'buy', ...failure }, { status: failure.status });
    }
  }
  if (intent !== 'buy') return unknownIntent();
  const { values, fieldErrors } = readDollars(form, { amount: { noun: 'the amount to add' } });
  const amount = values.amount;
  if (amount !== null && (amount < 1_000 || amount > 1_000_000))
    fieldErrors.amount = 'Add between $10 and $10,000 at a time.';
  if (amount === null || Object.keys(fieldErrors).length > 0)
    return json({ intent, ...fieldFailure(fieldErrors) }, { status: 400 });
  try {
    const checkout = await context.trpc.ads.fundsCheckout({ amount_cents: amount });
    // Checkout is not a dashboard route (Stripe, or this server's simulated page): a new document, as on billing.
    return redirectDocument(checkout.checkout_url);
  } catch (error) {
    return refusedForm(context, error, intent, []);
  }
}

/** Milli-cents (1/1000 of a cent) as dollars with as many decimals as they need: "−$0.10", "+$100.00". */
function millicentsText(millicents: number): string {
  const sign = millicents < 0 ? '−' : '+';
  const dollars = Math.abs(millicents) / 100_000;
  const digits = Number.isInteger(Math.abs(millicents) / 1_000) ? 2 : 5;
  return `${sign}$${dollars.toLocaleString('en-GB', { minimumFractionDigits: 2, maximumFractionDigits: digits })}`;
}

export default function Funds() {
  const { funds, paged, problem, purchase, email, mailFolder } = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>();
  const navigation = useNavigation();
  const submitting = navigation.state === 'submitting' ? navigation.formData?.get('intent') : null;
  const busy = submitting === 'buy';
  const sending = submitting === 'resend-verification';
  const failure = result && 'formError' in result ? result : null;
  const oldest = funds.transactions.at(-1);

  return (
    <>
      <header className="page-header">
        <p className="eyebrow">Advertise</p>
        <h1>Funds</h1>
        <p className="lead">
          You have <strong>{formatCents(funds.balance_cents)}</strong> of advertising funds. Your{' '}
          <Link to="/ads/campaigns">campaigns</Link> spend them as your products are seen.
        </p>
      </header>

      {purchase?.status === 'complete' && purchase.purpose === 'ad_funds' ? (
        <Alert tone="success" title="Thank you">
          {formatCents(purchase.amount_cents)} of advertising funds were added.
        </Alert>
      ) : null}
      {purchase?.status === 'open' ? (
        <Alert tone="info">The payment is not finished yet. Reload this page in a moment.</Alert>
      ) : null}
      <section className="card" aria-labelledby="buy-title">
        <h2 id="buy-title">Add funds</h2>
        {failure?.code === 'email_unverified' ? (
          <ConfirmEmailNotice email={email} sending={sending} mailFolder={mailFolder} />
        ) : failure ? (
          <Alert tone="error">{failure.formError}</Alert>
        ) : null}
        {result && 'done' in result ? <Alert tone="success">{result.done}</Alert> : null}
        <Form method="post" className="stack">
          <input type="hidden" name="intent" value="buy" />
          <Field
            label="Amount in dollars ($10–$10,000)"
            name="amount"
            inputMode="decimal"
            defaultValue="50"
            hint="Paid through the same checkout as credits."
            error={(failure?.fieldErrors as Record<string, string> | undefined)?.amount}
          />
          <button type="submit" className="button button--primary" disabled={busy}>
            {busy ? 'Opening checkout…' : 'Continue to payment'}
          </button>
        </Form>
      </section>

      <section className="card" aria-labelledby="ledger-title">
        <h2 id="ledger-title">{paged ? 'Older entries' : 'Latest entries'}</h2>
        {problem ? <Alert tone="warning">{problem}</Alert> : null}
        <p className="muted">Spend is one entry per campaign and UTC day, growing with each view.</p>
        <DataTable
          rows={funds.transactions}
          columns={['Date (UTC)', 'What', { name: 'Amount', className: 'data-table__number' }]}
          empty={paged ? 'No older entries.' : 'Nothing yet. Add funds above to start advertising.'}
        >
          {(entry) => (
            <tr key={entry.id}>
              <td data-label="Date (UTC)">
                <time dateTime={entry.created_at}>{formatTimestamp(entry.created_at)}</time>
              </td>
              <td data-label="What">{REASON_TEXT[entry.reason]}</td>
              <td
                data-label="Amount"
                className={`data-table__number ${entry.delta_millicents < 0 ? 'is-negative' : 'is-positive'}`}
              >
                {millicentsText(entry.delta_millicents)}
              </td>
            </tr>
          )}
        </DataTable>
        <CursorPager
          label="Funds pages"
          basePath="/ads/funds"
          oldestId={oldest?.id}
          hasMore={funds.has_more}
          paged={paged}
        />
      </section>
    </>
  );
}

export { RouteErrorBoundary as ErrorBoundary } from '../components/route-error-boundary.js';
