import { type AppLoadContext, type HeadersFunction, json, redirect } from '@remix-run/node';
import { describeFormFailure, formText } from './forms.server.js';
import { safeRedirect } from './safe-redirect.js';

export type Account = Awaited<ReturnType<AppLoadContext['trpc']['auth']['me']>>;

/** The signed-in account, or null when the request carries no valid session. Other failures propagate. */
export async function getAccount(context: AppLoadContext): Promise<Account | null> {
  return (await getSignedIn(context))?.account ?? null;
}

async function lookUpSignedIn(context: AppLoadContext): Promise<SignedIn | null> {
  try {
    const [account, current] = await Promise.all([context.trpc.auth.me(), context.trpc.teams.current()]);
    return { account, current };
  } catch (error) {
    if (context.describeError(error).status === 401) return null;
    throw error;
  }
}

/**
 * The pages a member may still use while their current account refuses them (for want of two-factor sign-in, or
 * because it is suspended): turning two-factor sign-in on, joining or switching to another account, signing out. The
 * API lets the same things through (the `user` procedures).
 */
const EXEMPT_PAGES = new Set(['/security', '/invite', '/switch-account', '/logout']);

/** Where a member goes when their current account requires two-factor sign-in and they have not turned it on. */
export const TWO_FACTOR_REQUIRED_PAGE = '/security?two_factor=required';

export type CurrentAccount = Awaited<ReturnType<AppLoadContext['trpc']['teams']['current']>>;
export interface SignedIn {
  account: Account;
  current: CurrentAccount;
}

/**
 * The signed-in user and their current account, looked up once per page request: the root loader, the route's loader
 * and its action all get the same answer (the session is verified once, in server/trpc/session.ts). Null when signed out.
 */
const signedInOf = new WeakMap<AppLoadContext, Promise<SignedIn | null>>();

export function getSignedIn(context: AppLoadContext): Promise<SignedIn | null> {
  let found = signedInOf.get(context);
  if (!found) {
    found = lookUpSignedIn(context);
    signedInOf.set(context, found);
  }
  return found;
}

/** Forgets the request's answer after something changed it (switching accounts, signing out). */
export function forgetSignedIn(context: AppLoadContext): void {
  signedInOf.delete(context);
}

/** The error page of a suspended account (403): it names the account; the header keeps the switcher and sign-out. */
export function accountSuspendedPage(accountName: string): Response {
  return json(
    {
      status: 403,
      code: 'account_suspended',
      account: accountName,
      message:
        'This account is suspended: its pages, keys and sessions do not work until Roomstage restores it. Switch to another of your accounts, or sign out.',
    },
    { status: 403 },
  );
}

/**
 * For pages behind sign-in: sends anonymous visitors to /login and brings them back afterwards, a member whose
 * account requires two-factor sign-in they have not turned on to the Security page, which says why, and shows a
 * member of a suspended account the page that says so, with the way out (the switcher and sign-out).
 */
export async function requireAccount(context: AppLoadContext, request: Request): Promise<Account> {
  const { pathname, search } = new URL(request.url);
  const signedIn = await getSignedIn(context);
  if (!signedIn) throw redirect(`/login?${new URLSearchParams({ redirectTo: pathname + search })}`);
  if (!EXEMPT_PAGES.has(pathname)) {
    if (signedIn.current.suspended) throw accountSuspendedPage(signedIn.current.name);
    if (signedIn.current.two_factor_required) throw redirect(TWO_FACTOR_REQUIRED_PAGE);
  }
  return signedIn.account;
}

/**
 * The start every form action of a page behind sign-in shares: the session (checked once for the request, as
 * requireAccount does), the submitted form and its `intent`, which names what the form asks for.
 */
export async function readIntentForm(
  context: AppLoadContext,
  request: Request,
): Promise<{ account: Account; form: FormData; intent: string | undefined }> {
  const account = await requireAccount(context, request);
  const form = await request.formData();
  return { account, form, intent: formText(form, 'intent') };
}

/** For the sign-in and sign-up pages: someone already signed in goes straight to the dashboard. */
export async function requireAnonymous(context: AppLoadContext): Promise<void> {
  if (await getAccount(context)) throw redirect('/overview');
}

/** Finishes sign-in or sign-up: stores the session in the cookie and continues where the visitor wanted to go. */
function startSession(context: AppLoadContext, token: string, redirectTo: unknown) {
  return redirect(safeRedirect(redirectTo), { headers: { 'Set-Cookie': context.sessionCookie(token) } });
}

/** A six-digit code is the authenticator app's; anything else typed in the code field is a recovery code. */
export function secondFactor(code: string | undefined): { otp?: string; recovery_code?: string } {
  const typed = code?.trim() ?? '';
  if (typed === '') return {};
  const digits = typed.replace(/\s/g, '');
  return /^\d{6}$/.test(digits) ? { otp: digits } : { recovery_code: typed };
}

/**
 * The whole action of the sign-in and sign-up pages, which differ only in the procedure they call: on success the
 * session starts; on failure the form comes back with its errors and the typed e-mail (never the password).
 * `otpRequired` asks the sign-in form for the second factor: after `otp_required`, and after a refused code.
 */
export async function credentialsAction(context: AppLoadContext, request: Request, kind: 'login' | 'signup') {
  const form = await request.formData();
  const email = formText(form, 'email')?.trim() ?? '';
  const credentials = { email, password: formText(form, 'password') ?? '' };
  const code = formText(form, 'code');
  try {
    const { token } = await (kind === 'login'
      ? context.trpc.auth.login({ ...credentials, ...secondFactor(code) })
      : context.trpc.auth.signup(credentials));
    return startSession(context, token, formText(form, 'redirectTo'));
  } catch (error) {
    const failure = describeFormFailure(context, error, ['email', 'password', 'otp', 'recovery_code']);
    // Throttled (429): the form says how long to wait, and Retry-After says it to machines.
    const retryAfter = failure.status === 429 ? context.describeError(error).headers['Retry-After'] : undefined;
    const headers: Record<string, string> = retryAfter ? { 'Retry-After': retryAfter } : {};
    // Once the code field was shown, it stays: a refused code looks like a wrong password, by design.
    const otpRequired = failure.code === 'otp_required' || code !== undefined;
    const { otp, recovery_code, ...fieldErrors } = failure.fieldErrors;
    const codeError = otp ?? recovery_code;
    return json(
      {
        ...failure,
        fieldErrors: codeError ? { ...fieldErrors, code: codeError } : fieldErrors,
        formError:
          failure.code === 'otp_required'
            ? 'Two-factor sign-in is on for this account: enter the code from your authenticator app with your password.'
            : failure.formError,
        email,
        otpRequired,
      },
      { status: failure.status, headers },
    );
  }
}

/** The sign-in and sign-up pages pass a throttled action's Retry-After on to the page itself. */
export const credentialsHeaders: HeadersFunction = ({ actionHeaders }) => {
  const retryAfter = actionHeaders.get('Retry-After');
  return retryAfter ? { 'Retry-After': retryAfter } : new Headers();
};
