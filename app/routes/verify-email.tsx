import { type ActionFunctionArgs, json, type LoaderFunctionArgs, type MetaFunction } from '@remix-run/node';
import { Form, Link, useActionData, useLoaderData, useNavigation } from '@remix-run/react';
import { Alert } from '../components/alert.js';
import { Field } from '../components/field.js';
import { formText } from '../utils/forms.server.js';
import { pageMeta } from '../utils/meta.js';
import { getAccount } from '../utils/session.server.js';
import { tokenProblem } from '../utils/token-links.server.js';

export const meta: MetaFunction = () =>
  pageMeta('Confirm your e-mail address · Roomstage', 'Confirm the e-mail address of your Roomstage account.');

const MALFORMED = 'This confirmation link is incomplete. Open it again from the e-mail, or ask for a new one.';

/** Who is signed in (the link confirms at once for them when it is theirs), and where to go next. */
async function visitor(context: LoaderFunctionArgs['context']) {
  const account = await getAccount(context);
  return { signedInAs: account?.email ?? null, next: account ? ('billing' as const) : ('login' as const) };
}

// Confirming takes a click (a POST), not the GET of the link: mail scanners and link previews open links first and
// would spend the one-time token before the person does. The link confirms only for the holder of the account's
// password: signed in as that user, or typing the password here.
export async function loader({ context, request }: LoaderFunctionArgs) {
  const token = new URL(request.url).searchParams.get('token')?.trim() ?? '';
  return { token, ...(await visitor(context)) };
}

export async function action({ context, request }: ActionFunctionArgs) {
  const form = await request.formData();
  const token = formText(form, 'token')?.trim() ?? '';
  const password = formText(form, 'password');
  const { next } = await visitor(context);
  try {
    const { email } = await context.trpc.auth.verifyEmail({ token, password: password || undefined });
    return json({ email, problem: null, passwordError: null, next });
  } catch (error) {
    const described = context.describeError(error);
    // Not the holder's session and no right password: the form stays, asking for it.
    if (described.status === 401)
      return json(
        {
          email: null,
          problem: null,
          passwordError: password
            ? 'That is not the password of the account this link is for.'
            : 'Enter the password of the account this link is for.',
          next,
        },
        { status: 401 },
      );
    const problem = tokenProblem(context, error, MALFORMED);
    return json({ email: null, problem, passwordError: null, next }, { status: described.status });
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
  const { token, signedInAs, next: loaderNext } = useLoaderData<typeof loader>();
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
          <p>
            Confirming proves that this address is yours, so receipts and payment notices reach you. The link confirms
            only for the person who holds the account’s password.
          </p>
          <input type="hidden" name="token" value={token} />
          <Field
            label="Password of the account"
            name="password"
            type="password"
            autoComplete="current-password"
            hint={
              signedInAs
                ? `Not needed if this link is for ${signedInAs}, the account you are signed in as.`
                : 'The password you chose when you created the account.'
            }
            error={result?.passwordError ?? undefined}
          />
          <button type="submit" className="button button--primary button--block" disabled={submitting}>
            {submitting ? 'Confirming…' : 'Confirm my e-mail address'}
          </button>
        </Form>
      )}
    </section>
  );
}

export { RouteErrorBoundary as ErrorBoundary } from '../components/route-error-boundary.js';
