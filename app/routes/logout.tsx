import { type ActionFunctionArgs, redirect } from '@remix-run/node';

/** Signing out is a POST (a form in the header); a visit by GET just goes home. */
export function loader() {
  return redirect('/');
}

export async function action({ context }: ActionFunctionArgs) {
  try {
    await context.trpc.auth.logout();
  } catch (error) {
    // Already signed out (expired or unknown session): clearing the cookie below is all that is left to do.
    if (context.describeError(error).status !== 401) throw error;
  }
  return redirect('/?signed_out=1', { headers: { 'Set-Cookie': context.blankSessionCookie() } });
}
