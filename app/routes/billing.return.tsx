import type { LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Link, useLoaderData } from '@remix-run/react';
import { Alert } from '../components/alert.js';
import { requireAccount } from '../utils/session.server.js';
import { pageMeta } from '../utils/meta.js';

export const meta: MetaFunction = () =>
  pageMeta('Payment · Roomstage', 'The result of your Roomstage credit purchase.');

/** Where Checkout sends the customer back: asking for the session credits a paid purchase once, if the event has not. */
export async function loader({ context, request }: LoaderFunctionArgs) {
  await requireAccount(context, request);
  const sessionId = new URL(request.url).searchParams.get('session_id') ?? '';
  try {
    return { checkout: await context.trpc.billing.checkoutStatus({ session_id: sessionId }), problem: null };
  } catch (error) {
    const problem = context.describeError(error);
    if (problem.status >= 500) throw error;
    return {
      checkout: null,
      problem: 'We could not find that payment. If you paid, your credits appear on the billing page within a minute.',
    };
  }
}

export default function CheckoutReturn() {
  const { checkout, problem } = useLoaderData<typeof loader>();
  return (
    <>
      <header className="page-header">
        <p className="eyebrow">Billing</p>
        <h1>Payment</h1>
      </header>
      <section className="card" aria-live="polite">
        {problem ? <Alert tone="warning">{problem}</Alert> : null}
        {checkout?.status === 'complete' ? (
          <Alert tone="success" title="Thank you">
            {checkout.credits} credit{checkout.credits === 1 ? ' was' : 's were'} added to your balance.
          </Alert>
        ) : null}
        {checkout?.status === 'open' ? (
          <Alert tone="info">The payment is not finished yet. Reload this page in a moment.</Alert>
        ) : null}
        {checkout?.status === 'expired' ? (
          <Alert tone="warning">This checkout expired without a payment. Start a new purchase.</Alert>
        ) : null}
        <Link to="/billing" className="button">
          Back to billing
        </Link>
      </section>
    </>
  );
}

export { RouteErrorBoundary as ErrorBoundary } from '../components/route-error-boundary.js';
