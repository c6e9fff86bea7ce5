import { type ActionFunctionArgs, redirect } from '@remix-run/node';
import { formText } from '../utils/forms.server.js';
import { safeRedirect } from '../utils/safe-redirect.js';
import { forgetSignedIn, requireAccount } from '../utils/session.server.js';

/** The account switcher in the header posts here; a visit by GET just goes to the overview. */
export function loader() {
  return redirect('/overview');
}

/** Points the session at the chosen account (404 for one the user is not in) and reloads the page in it. */
export async function action({ context, request }: ActionFunctionArgs) {
  await requireAccount(context, request);
  const form = await request.formData();
  await context.trpc.teams.switchAccount({ account_id: formText(form, 'account_id') ?? '' });
  forgetSignedIn(context);
  return redirect(safeRedirect(formText(form, 'redirectTo')));
}

export { RouteErrorBoundary as ErrorBoundary } from '../components/route-error-boundary.js';
