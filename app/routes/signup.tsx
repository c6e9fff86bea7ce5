import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { useActionData, useSearchParams } from '@remix-run/react';
import { CredentialsForm } from '../components/credentials-form.js';
import { credentialsAction, credentialsHeaders, requireAnonymous } from '../utils/session.server.js';
import { pageMeta } from '../utils/meta.js';

export const meta: MetaFunction = () =>
  pageMeta(
    'Create your account · Roomstage',
    'Create a Roomstage account to stage room photos through the API and the dashboard.',
  );

export const headers = credentialsHeaders;

export async function loader({ context }: LoaderFunctionArgs) {
  await requireAnonymous(context);
  return null;
}

export function action({ context, request }: ActionFunctionArgs) {
  return credentialsAction(context, request, 'signup');
}

export default function Signup() {
  const state = useActionData<typeof action>();
  const [searchParams] = useSearchParams();
  return (
    <section className="card card--narrow" aria-labelledby="signup-title">
      <h1 id="signup-title">Create your account</h1>
      <p className="muted">
        One account for both sides: API keys for staging companies, claim codes for estate agents.
      </p>
      <CredentialsForm kind="signup" redirectTo={searchParams.get('redirectTo')} state={state} />
    </section>
  );
}
