import { type ActionFunctionArgs, json, type MetaFunction } from '@remix-run/node';
import { Form, Link, useActionData, useNavigation } from '@remix-run/react';
import { Alert } from '../components/alert.js';
import { Field } from '../components/field.js';
import { describeFormFailure, formText } from '../utils/forms.server.js';
import { pageMeta } from '../utils/meta.js';

export const meta: MetaFunction = () =>
  pageMeta('Reset your password · Roomstage', 'Get an e-mail with a link to choose a new Roomstage password.');

export async function action({ context, request }: ActionFunctionArgs) {
  const email = formText(await request.formData(), 'email')?.trim() ?? '';
  try {
    await context.trpc.auth.requestPasswordReset({ email });
    // The same answer whether or not the address has an account, so the page tells nobody who is registered.
    return json({ sent: true as const, email, formError: null, fieldErrors: {} as Record<string, string> });
  } catch (error) {
    const failure = describeFormFailure(context, error, ['email']);
    if (failure.status >= 500) throw error;
    return json({ sent: false as const, email, ...failure }, { status: failure.status });
  }
}

export default function ForgotPassword() {
  const result = useActionData<typeof action>();
  const submitting = useNavigation().state === 'submitting';

  return (
    <section className="card card--narrow" aria-labelledby="forgot-title">
      <h1 id="forgot-title">Reset your password</h1>
      {result?.sent ? (
        <div className="stack">
          <Alert tone="success">
            <p>
              If <strong>{result.email}</strong> has an account, we sent it a link to choose a new password. The link
              works for one hour.
            </p>
          </Alert>
          <p className="form-footer">
            <Link to="/login">Back to sign-in</Link>
          </p>
        </div>
      ) : (
        <Form method="post" className="stack">
          <p className="muted">
            Enter the e-mail address you sign in with. We will send you a link to choose a new password.
          </p>
          {result?.formError ? (
            <Alert tone="error">
              <p>{result.formError}</p>
            </Alert>
          ) : null}
          <Field
            label="E-mail"
            name="email"
            type="email"
            autoComplete="username"
            inputMode="email"
            required
            maxLength={254}
            defaultValue={result?.email}
            error={result?.fieldErrors?.email}
            autoFocus
          />
          <button type="submit" className="button button--primary button--block" disabled={submitting}>
            {submitting ? 'Sending…' : 'Send the reset link'}
          </button>
          <p className="form-footer">
            Remembered it? <Link to="/login">Sign in</Link>
          </p>
        </Form>
      )}
    </section>
  );
}

export { RouteErrorBoundary as ErrorBoundary } from '../components/route-error-boundary.js';
