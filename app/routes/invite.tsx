import { type ActionFunctionArgs, json, type LoaderFunctionArgs, type MetaFunction } from '@remix-run/node';
import { Form, Link, useActionData, useLoaderData, useNavigation } from '@remix-run/react';
import { Alert } from '../components/alert.js';
import { formText } from '../utils/forms.server.js';
import { pageMeta } from '../utils/meta.js';
import { requireAccount } from '../utils/session.server.js';
import { tokenProblem } from '../utils/token-links.server.js';

export const meta: MetaFunction = () =>
  pageMeta('Accept an invitation · Roomstage', 'Join a Roomstage account you were invited to.');

const MALFORMED = 'This invitation link is incomplete. Open it again from the e-mail, or ask for a new invitation.';

// Signing in first: the invitation is for one e-mail address, and joining takes a click (a POST), so that mail
// scanners opening the link do not spend it.
export async function loader({ context, request }: LoaderFunctionArgs) {
  const user = await requireAccount(context, request);
  const token = new URL(request.url).searchParams.get('token')?.trim() ?? '';
  return { token, email: user.email };
}

/** Joins, then switches the session to the joined account, so the next page is already in it. */
export async function action({ context, request }: ActionFunctionArgs) {
  await requireAccount(context, request);
  const token = formText(await request.formData(), 'token')?.trim() ?? '';
  try {
    const joined = await context.trpc.teams.acceptInvite({ token });
    const account = await context.trpc.teams.switchAccount({ account_id: joined.account_id });
    const { permissions } = await context.trpc.teams.current();
    const next = permissions.includes('read') ? '/overview' : '/claims';
    return json({ joined: { name: account.name, role: account.role, next }, problem: null });
  } catch (error) {
    return json(
      { joined: null, problem: tokenProblem(context, error, MALFORMED) },
      { status: context.describeError(error).status },
    );
  }
}

export default function AcceptInvite() {
  const { token, email } = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>();
  const submitting = useNavigation().state === 'submitting';

  return (
    <section className="card card--narrow stack" aria-labelledby="invite-title">
      <h1 id="invite-title">Accept an invitation</h1>
      {result?.joined ? (
        <>
          <Alert tone="success">
            <p>
              You joined <strong>{result.joined.name}</strong> as <strong>{result.joined.role}</strong>, and you are now
              working in it. Switch accounts from the account menu at the top.
            </p>
          </Alert>
          <Link to={result.joined.next} className="button button--primary">
            Continue
          </Link>
        </>
      ) : result?.problem || !token ? (
        <Alert tone="error">
          <p>{result?.problem ?? MALFORMED}</p>
        </Alert>
      ) : (
        <Form method="post" className="stack">
          <p>
            You are signed in as <strong>{email}</strong>. The invitation must be for this address.
          </p>
          <input type="hidden" name="token" value={token} />
          <button type="submit" className="button button--primary button--block" disabled={submitting}>
            {submitting ? 'Joining…' : 'Join the account'}
          </button>
        </Form>
      )}
    </section>
  );
}

export { RouteErrorBoundary as ErrorBoundary } from '../components/route-error-boundary.js';
