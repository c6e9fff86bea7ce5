import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { useActionData, useSearchParams } from '@remix-run/react';
import { CredentialsForm } from '../components/credentials-form.js';
import { credentialsAction, credentialsHeaders, requireAnonymous } from '../utils/session.server.js';
import { pageMeta } from '../utils/meta.js';

export const meta: MetaFunction = () =>
  pageMeta('Sign in · Roomstage', 'Sign in to Roomstage to manage your API keys, credits and staged images.');

export const headers = credentialsHeaders;

export async function loader({ context }: LoaderFunctionArgs) {
  await requireAnonymous(context);
  return null;
}

export function action({ context, request }: ActionFunctionArgs) {
  return credentialsAction(context, request, 'login');
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
