import { type ActionFunctionArgs, json, type LoaderFunctionArgs, type MetaFunction } from '@remix-run/node';
import { useActionData, useSearchParams } from '@remix-run/react';
import { CredentialsForm } from '../components/credentials-form.js';
import { describeFormFailure, formText } from '../utils/forms.server.js';
import { requireAnonymous, startSession } from '../utils/session.server.js';

export const meta: MetaFunction = () => [{ title: 'Sign in · Roomstage' }];

export async function loader({ context }: LoaderFunctionArgs) {
  await requireAnonymous(context);
  return null;
}

export async function action({ context, request }: ActionFunctionArgs) {
  const form = await request.formData();
  const email = formText(form, 'email')?.trim() ?? '';
  try {
    const { token } = await context.trpc.auth.login({ email, password: formText(form, 'password') ?? '' });
    return startSession(context, token, formText(form, 'redirectTo'));
  } catch (error) {
    const failure = describeFormFailure(context, error, ['email', 'password']);
    return json({ ...failure, email }, { status: failure.status });
  }
}

export default function Login() {
  const state = useActionData<typeof action>();
  const [searchParams] = useSearchParams();
  return (
    <section className="card card--narrow" aria-labelledby="login-title">
      <h1 id="login-title">Sign in</h1>
      <p className="muted">Welcome back to Roomstage.</p>
      <CredentialsForm kind="login" redirectTo={searchParams.get('redirectTo')} state={state} />
    </section>
  );
}
