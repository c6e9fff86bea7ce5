import { type ActionFunctionArgs, json, type LoaderFunctionArgs, type MetaFunction } from '@remix-run/node';
import { Form, Link, useActionData, useLoaderData, useNavigation } from '@remix-run/react';
import { Alert } from '../components/alert.js';
import { Field } from '../components/field.js';
import { describeFormFailure, formText } from '../utils/forms.server.js';
import { pageMeta } from '../utils/meta.js';
import { tokenProblem } from '../utils/token-links.server.js';

export const meta: MetaFunction = () =>
  pageMeta('Choose a new password · Roomstage', 'Choose a new password for your Roomstage account.');

const MALFORMED = 'This reset link is incomplete. Open it again from the e-mail, or ask for a new one.';

export function loader({ request }: LoaderFunctionArgs) {
  return { token: new URL(request.url).searchParams.get('token')?.trim() ?? '' };
}

export async function action({ context, request }: ActionFunctionArgs) {
  const form = await request.formData();
  const token = formText(form, 'token')?.trim() ?? '';
  try {
    await context.trpc.auth.confirmPasswordReset({ token, password: formText(form, 'password') ?? '' });
    return json({ done: true as const, linkProblem: null, formError: null, fieldErrors: {} as Record<string, string> });
  } catch (error) {
    const failure = describeFormFailure(context, error, ['password']);
    // A refused password keeps the form; anything else is about the link, which no retyping fixes.
    if (failure.fieldErrors.password)
      return json({ done: false as const, linkProblem: null, token, ...failure }, { status: 400 });
    return json(
      { done: false as const, linkProblem: tokenProblem(context, error, MALFORMED), ...failure },
      { status: failure.status },
    );
  }
}

export default function ResetPassword() {
  const loaded = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>();
  // The form carries the token too, so a refused password keeps it whatever URL the form was posted to.
  const token = (result && 'token' in result ? result.token : null) ?? loaded.token;
  const submitting = useNavigation().state === 'submitting';
  const linkProblem = result?.linkProblem ?? (token ? null : MALFORMED);

  return (
    <section className="card card--narrow" aria-labelledby="reset-title">
      <h1 id="reset-title">Choose a new password</h1>
      {result?.done ? (
        <div className="stack">
          <Alert tone="success">
            <p>Your password is changed. Every device was signed out: sign in again with the new password.</p>
          </Alert>
          <Link to="/login" className="button button--primary button--block">
            Sign in
          </Link>
        </div>
      ) : linkProblem ? (
        <div className="stack">
          <Alert tone="error">
            <p>{linkProblem}</p>
          </Alert>
          <p className="form-footer">
            <Link to="/forgot-password">Send me a new reset link</Link>
          </p>
        </div>
      ) : (
        <Form method="post" className="stack">
          {result?.formError ? (
            <Alert tone="error">
              <p>{result.formError}</p>
            </Alert>
          ) : null}
          <input type="hidden" name="token" value={token} />
          <Field
            label="New password"
            name="password"
            type="password"
            autoComplete="new-password"
            required
            minLength={10}
            maxLength={1024}
            hint="At least 10 characters."
            error={result?.fieldErrors?.password}
            autoFocus
          />
          <button type="submit" className="button button--primary button--block" disabled={submitting}>
            {submitting ? 'Saving…' : 'Save the new password'}
          </button>
        </Form>
      )}
    </section>
  );
}

export { RouteErrorBoundary as ErrorBoundary } from '../components/route-error-boundary.js';
