import {
  type ActionFunctionArgs,
  json,
  type LinksFunction,
  type LoaderFunctionArgs,
  type MetaFunction,
  redirectDocument,
} from '@remix-run/node';
import { Form, Link, useActionData, useLoaderData, useNavigation } from '@remix-run/react';
import { type FormEvent, useState } from 'react';
import { Alert } from '../components/alert.js';
import { Badge } from '../components/badge.js';
import { CONFIRMATION_SENT, ConfirmEmailNotice } from '../components/confirm-email-notice.js';
import { TransactionsTable } from '../components/billing/transactions-table.js';
import { Field } from '../components/field.js';
import { EmptyState } from '../components/empty-state.js';
import usageStyles from '../styles/usage.css?url';
import { formatTimestamp } from '../utils/format.js';
import { autoTopUpProblems } from '../../shared/auto-topup-rules.js';
import { describeFormFailure, fieldFailure, formText, readWholeNumbers, unknownIntent } from '../utils/forms.server.js';
import { readIntentForm, requireAccount } from '../utils/session.server.js';
import { pageMeta } from '../utils/meta.js';

export const meta: MetaFunction = () =>
  pageMeta(
    'Billing · Roomstage',
    'Your Roomstage credit balance: buy credits, set up automatic top-up and see recent transactions.',
  );
export const links: LinksFunction = () => [{ rel: 'stylesheet', href: usageStyles }];

const PRESETS = [10, 50, 100, 500] as const;
const RECENT_TRANSACTIONS = 5;
/** A range such as 10–10 000 that never wraps inside (no-break space, word joiners around the dash): phones keep it whole. */
const range = (from: number, to: number) =>
  [from, to].map((n) => n.toLocaleString('en-GB').replace(/,/g, '\u00a0')).join('\u2060–\u2060');

const FAILURE_TEXT: Record<string, string> = {
  card_declined: 'the card was declined',
  authentication_required: 'the bank asked for authentication, which cannot happen off-session',
  payment_method_missing: 'no card was on file',
  monthly_limit_reached: 'the monthly limit was reached',
  processing_error: 'the payment could not be processed',
};

export async function loader({ context, request }: LoaderFunctionArgs) {
  const account = await requireAccount(context, request);
  const [billing, recent, current, mail] = await Promise.all([
    context.trpc.billing.overview(),
    context.trpc.usage.transactions({ limit: RECENT_TRANSACTIONS }),
    context.trpc.teams.current(),
    context.trpc.auth.mailDelivery(),
  ]);
  // Every reading role sees the balance; only a role with `billing` is offered buying (the server refuses the rest).
  const role = { name: current.role, mayBuy: current.permissions.includes('billing') };
  return { billing, recent, email: account.email, role, mailFolder: mail.folder };
}

export async function action({ context, request }: ActionFunctionArgs) {
  const { form, intent } = await readIntentForm(context, request);
  try {
    switch (intent) {
      case 'buy': {
        const field = formText(form, 'credits') === 'custom' ? 'custom_credits' : 'credits';
        const read = readWholeNumbers(form, { [field]: { noun: 'the number of credits to buy' } });
        const credits = read.values[field];
        if (credits === null || credits === undefined)
          return json({ intent, ...fieldFailure({ credits: read.fieldErrors[field] ?? '' }) }, { status: 400 });
        const checkout = await context.trpc.billing.checkout({ credits });
        // Checkout is not a dashboard route (Stripe, or this server's simulated page): the browser loads it as a
        // new document instead of the client router rendering it as an unknown route.
        return redirectDocument(checkout.checkout_url);
      }
      case 'resend-verification': {
        await context.trpc.auth.resendVerification();
        return json({ intent: 'buy', done: CONFIRMATION_SENT } as const);
      }
      case 'remove-card': {
        await context.trpc.billing.removePaymentMethod();
        return json({ intent, done: 'The card was removed and auto top-up is off.' } as const);
      }
      case 'auto-topup': {
        const { values, fieldErrors } = readWholeNumbers(form, {
          amount: { noun: 'the credits to buy each time' },
          threshold: { noun: 'the balance that starts a top-up' },
          monthly_limit: { noun: 'a monthly limit (or leave it blank)', blankIsNull: true },
        });
        if (values.amount === null || values.threshold === null || Object.keys(fieldErrors).length > 0) {
          return json({ intent, ...fieldFailure(fieldErrors) }, { status: 400 });
        }
        await context.trpc.billing.putAutoTopUp({
          enabled: formText(form, 'enabled') === 'on',
          amount: values.amount,
          threshold: values.threshold,
          monthly_limit: values.monthly_limit,
        });
        return json({ intent, done: 'Auto top-up settings saved.' } as const);
      }
      default:
        return unknownIntent();
    }
  } catch (error) {
    const shown =
      intent === 'auto-topup' ? ['amount', 'threshold', 'monthly_limit'] : intent === 'buy' ? ['credits'] : [];
    const failure = describeFormFailure(context, error, shown);
    // Asking for a new confirmation link is part of buying: its problems show in the buy card.
    const shownIn = intent === 'resend-verification' ? 'buy' : intent;
    return json({ intent: shownIn, ...failure }, { status: failure.status });
  }
}

export default function Billing() {
  const { billing, recent, email, role, mailFolder } = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>();
  const navigation = useNavigation();
  const busy = navigation.state === 'submitting' ? navigation.formData?.get('intent') : null;
  const failure = result && 'formError' in result ? result : null;
  // A confirmation shows inside the card whose form was saved, where the person is looking (also on a phone).
  const doneFor = (intent: string) => (result && 'done' in result && result.intent === intent ? result.done : null);
  const card = billing.payment_method;
  const auto = billing.auto_topup;
  const errorFor = (intent: string, field: string) =>
    failure?.intent === intent ? (failure.fieldErrors as Record<string, string>)[field] : undefined;
  // The server's rules, run as the person types, so settings that cannot work are explained before saving.
  const [autoProblems, setAutoProblems] = useState(() => autoTopUpProblems(auto).map((problem) => problem.message));
  const checkAutoTopUp = (event: FormEvent<HTMLFormElement>) => {
    const data = new FormData(event.currentTarget);
    const whole = (name: string) => {
      const text = String(data.get(name) ?? '').trim();
      return /^\d{1,9}$/.test(text) ? Number(text) : null;
    };
    const [amount, threshold] = [whole('amount'), whole('threshold')];
    const problems =
      amount === null || threshold === null
        ? []
        : autoTopUpProblems({ amount, threshold, monthly_limit: whole('monthly_limit') });
    setAutoProblems(problems.map((problem) => problem.message));
  };

  return (
    <>
      <header className="page-header">
        <p className="eyebrow">Billing</p>
        <h1>Billing</h1>
        <p className="lead">
          You have <strong>{billing.credits}</strong> credit{billing.credits === 1 ? '' : 's'}. One credit stages or
          enhances one image and costs $1. See <Link to="/billing/transactions">transactions</Link> for every change to
          your balance.
        </p>
      </header>

      <section className="card" aria-labelledby="buy-title">
        <h2 id="buy-title">Buy credits</h2>
        {failure?.intent === 'buy' && failure.code === 'email_unverified' ? (
          // The server's sentence names the API call; here the person gets the button instead.
          <ConfirmEmailNotice email={email} sending={busy === 'resend-verification'} mailFolder={mailFolder} />
        ) : failure?.intent === 'buy' ? (
          <Alert tone="error">{failure.formError}</Alert>
        ) : null}
        {doneFor('buy') ? <Alert tone="success">{doneFor('buy')}</Alert> : null}
        {role.mayBuy ? (
          <Form method="post" className="stack">
            <input type="hidden" name="intent" value="buy" />
            <fieldset className="field choices">
              <legend className="field__label">How many credits</legend>
              {PRESETS.map((credits, index) => (
                <label key={credits} className="choice">
                  <input type="radio" name="credits" value={credits} defaultChecked={index === 1} /> {credits} credits
                  ($
                  {credits})
                </label>
              ))}
              <label className="choice">
                <input type="radio" name="credits" value="custom" /> Another amount
              </label>
            </fieldset>
            <Field
              label={`Custom amount (${range(1, 10_000)} credits)`}
              name="custom_credits"
              type="number"
              min={1}
              max={10000}
              inputMode="numeric"
              error={errorFor('buy', 'credits')}
            />
            <button type="submit" className="button" disabled={busy === 'buy'}>
              {busy === 'buy' ? 'Opening checkout…' : 'Continue to payment'}
            </button>
            <p className="field__hint">Your card is saved for auto top-up. You can remove it at any time.</p>
          </Form>
        ) : (
          <Alert tone="info">
            <p>
              Your role in this account ({role.name}) may not buy credits: it needs owner, admin or billing. Ask an
              owner or admin of the account.
            </p>
          </Alert>
        )}
      </section>

      <section className="card" aria-labelledby="card-title">
        <h2 id="card-title">Card on file</h2>
        {failure?.intent === 'remove-card' ? <Alert tone="error">{failure.formError}</Alert> : null}
        {doneFor('remove-card') ? <Alert tone="success">{doneFor('remove-card')}</Alert> : null}
        {card ? (
          <Form method="post" className="stack">
            <p>
              {card.brand.toUpperCase()} •••• {card.last4}, expires {String(card.exp_month).padStart(2, '0')}/
              {card.exp_year} {card.simulated ? <Badge tone="revoked">simulated</Badge> : null}
            </p>
            {card.simulated ? (
              <p className="field__hint">
                This server runs without Stripe keys: payments are simulated and no money moves.
              </p>
            ) : null}
            <input type="hidden" name="intent" value="remove-card" />
            <button type="submit" className="button button--small" disabled={busy === 'remove-card'}>
              Remove card<span className="visually-hidden"> ending {card.last4}</span>
            </button>
            <p className="field__hint">Removing the card switches auto top-up off.</p>
          </Form>
        ) : (
          <EmptyState>No card on file. Buy credits once and the card you pay with is saved here.</EmptyState>
        )}
      </section>

      <section className="card" aria-labelledby="auto-title">
        <h2 id="auto-title">Auto top-up</h2>
        {auto.paused_until ? (
          <Alert tone="warning" title="Auto top-up is paused">
            The last top-up failed: {FAILURE_TEXT[auto.last_failure_reason ?? ''] ?? 'it could not be made'}. No charge
            is tried before {formatTimestamp(auto.paused_until)}. Saving these settings or a new card ends the pause.
          </Alert>
        ) : null}
        {failure?.intent === 'auto-topup' ? <Alert tone="error">{failure.formError}</Alert> : null}
        {doneFor('auto-topup') ? <Alert tone="success">{doneFor('auto-topup')}</Alert> : null}
        <Form method="post" className="stack" onChange={checkAutoTopUp}>
          <input type="hidden" name="intent" value="auto-topup" />
          <label className="choice">
            <input
              type="checkbox"
              name="enabled"
              defaultChecked={auto.enabled}
              disabled={!card && !auto.enabled}
              aria-describedby={card ? undefined : 'auto-topup-needs-card'}
            />{' '}
            Buy credits automatically when the balance runs low
          </label>
          {!card ? (
            <p id="auto-topup-needs-card" className="field__hint">
              Needs a card on file: buy credits once first.
            </p>
          ) : null}
          <Field
            label={`Credits to buy each time (${range(10, 10_000)})`}
            name="amount"
            type="number"
            min={10}
            max={10000}
            defaultValue={auto.amount}
            error={errorFor('auto-topup', 'amount')}
          />
          <Field
            label={`When the balance falls below (${range(0, 100_000)})`}
            name="threshold"
            type="number"
            min={0}
            max={100000}
            defaultValue={auto.threshold}
            error={errorFor('auto-topup', 'threshold')}
          />
          <Field
            label="Monthly limit in credits (blank = no limit)"
            name="monthly_limit"
            type="number"
            min={1}
            defaultValue={auto.monthly_limit ?? ''}
            hint="A leaked key can never buy more than this in a calendar month (UTC)."
            error={errorFor('auto-topup', 'monthly_limit')}
          />
          <p id="auto-topup-problems" className="field__hint field__hint--warning" role="status">
            {autoProblems.join(' ')}
          </p>
          <button type="submit" className="button" disabled={busy === 'auto-topup'}>
            Save auto top-up
          </button>
        </Form>
      </section>

      <section className="card" aria-labelledby="recent-title">
        <h2 id="recent-title">Recent transactions</h2>
        <TransactionsTable
          transactions={recent.transactions}
          hasMore={recent.has_more}
          basePath="/billing/transactions"
          paged={false}
        />
      </section>
    </>
  );
}

export { RouteErrorBoundary as ErrorBoundary } from '../components/route-error-boundary.js';
