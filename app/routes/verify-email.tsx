import { type ActionFunctionArgs, json, type LoaderFunctionArgs, type MetaFunction } from '@remix-run/node';
import { Form, Link, useActionData, useLoaderData, useNavigation } from '@remix-run/react';
import { Alert } from '../components/alert.js';
import { formText } from '../utils/forms.server.js';
import { pageMeta } from '../utils/meta.js';
import { getAccount } from '../utils/session.server.js';
import { tokenProblem } from '../utils/token-links.server.js';

export const meta: MetaFunction = () =>
  pageMeta('Confirm your e-mail address · Roomstage', 'Confirm the e-mail address of your Roomstage account.');

const MALFORMED = 'This confirmation link is incomplete. Open it again from the e-mail, or ask for a new one.';

/** Where to go next: buying credits is what a confirmed address unlocks. */
async function onward(context: LoaderFunctionArgs['context']): Promise<'billing' | 'login'> {
  return (await getAccount(context)) ? 'billing' : 'login';
}

// Confirming takes a click (a POST), not the GET of the link: mail scanners and link previews open links first and
// would spend the one-time token before the person does.
export async function loader({ context, request }: LoaderFunctionArgs) {
  const token = new URL(request.url).searchParams.get('token')?.trim() ?? '';
  return { token, next: await onward(context) };
}

export async function action({ context, request }: ActionFunctionArgs) {
  const token = formText(await request.formData(), 'token')?.trim() ?? '';
  const next = await onward(context);
  try {
    const { email } = await context.trpc.auth.verifyEmail({ token });
    return json({ email, problem: null, next });
  } catch (error) {
    const problem = tokenProblem(context, error, MALFORMED);
    return json({ email: null, problem, next }, { status: context.describeError(error).status });
  }
}

function Onward({ next }: { next: 'billing' | 'login' }) {
  return next === 'billing' ? (
    <Link to="/billing" className="button button--primary">
      Go to billing
    </Link>
  ) : (
    <Link to={`/login?${new URLSearchParams({ redirectTo: '/billing' })}`} className="button button--primary">
      Sign in
    </Link>
  );
}

export default function VerifyEmail() {
  const { token, next: loaderNext } = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>();
  const submitting = useNavigation().state === 'submitting';
  const next = result?.next ?? loaderNext;

  return (
    <section className="card card--narrow stack" aria-labelledby="verify-title">
      <h1 id="verify-title">Confirm your e-mail address</h1>
      {result?.email ? (
        <>
          <Alert tone="success">
            <p>
              Thank you: <strong>{result.email}</strong> is confirmed. You can buy credits now.
            </p>
          </Alert>
          <Onward next={next} />
        </>
      ) : result?.problem || !token ? (
        <>
          <Alert tone="error">
            <p>{result?.problem ?? MALFORMED}</p>
          </Alert>
          <p>
            {next === 'billing' ? (
              <>
                The <Link to="/billing">billing page</Link> sends a new link when you try to buy credits.
              </>
            ) : (
              <>
                <Link to={`/login?${new URLSearchParams({ redirectTo: '/billing' })}`}>Sign in</Link> and try to buy
                credits: the billing page sends a new link.
              </>
            )}
          </p>
        </>
      ) : (
        <Form method="post" className="stack">
          <p>One click confirms that this address is yours, so receipts and payment notices reach you.</p>
          <input type="hidden" name="token" value={token} />
          <button type="submit" className="button button--primary button--block" disabled={submitting}>
            {submitting ? 'Confirming…' : 'Confirm my e-mail address'}
          </button>
        </Form>
      )}
    </section>
  );
}

export { RouteErrorBoundary as ErrorBoundary } from '../components/route-error-boundary.js';
