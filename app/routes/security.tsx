import {
  type ActionFunctionArgs,
  json,
  type LinksFunction,
  type LoaderFunctionArgs,
  type MetaFunction,
} from '@remix-run/node';
import { Link, useActionData, useLoaderData, useNavigation } from '@remix-run/react';
import { Alert } from '../components/alert.js';
import { ChangePasswordForm } from '../components/security/change-password-form.js';
import { RecoveryCodesPanel } from '../components/security/recovery-codes-panel.js';
import { SessionsCard } from '../components/security/sessions-card.js';
import { TwoFactorCard } from '../components/security/two-factor-card.js';
import securityStyles from '../styles/security.css?url';
import { describeFormFailure, formText, unknownIntent } from '../utils/forms.server.js';
import { pageMeta } from '../utils/meta.js';
import { readIntentForm, requireAccount, secondFactor } from '../utils/session.server.js';

export const meta: MetaFunction = () =>
  pageMeta(
    'Security · Roomstage',
    'Change your password, turn on two-factor sign-in and sign out the browsers you no longer use.',
  );
export const links: LinksFunction = () => [{ rel: 'stylesheet', href: securityStyles }];

export async function loader({ context, request }: LoaderFunctionArgs) {
  const account = await requireAccount(context, request);
  const [twoFactor, { sessions }, current] = await Promise.all([
    context.trpc.security.twoFactorStatus(),
    context.trpc.security.sessions(),
    context.trpc.teams.current(),
  ]);
  // Sent here because the account refused them (server/trpc/session.ts): say why, and say so again once it is resolved.
  const sentHere = new URL(request.url).searchParams.get('two_factor') === 'required';
  const requirement = current.two_factor_required
    ? ({ state: 'refused', account: current.name } as const)
    : sentHere
      ? ({ state: 'resolved', account: current.name } as const)
      : null;
  return { email: account.email, twoFactor, sessions, requirement };
}

/** The inputs each form shows, so a refused value is reported next to its field. */
const SHOWN_FIELDS: Record<string, string[]> = {
  'change-password': ['current_password', 'new_password'],
  'enable-2fa': ['code'],
  'disable-2fa': ['password', 'code', 'recovery_code'],
};

export async function action({ context, request }: ActionFunctionArgs) {
  const { form, intent } = await readIntentForm(context, request);
  try {
    switch (intent) {
      case 'change-password':
        await context.trpc.security.changePassword({
          current_password: formText(form, 'current_password') ?? '',
          new_password: formText(form, 'new_password') ?? '',
        });
        return json({ intent, passwordChanged: true } as const);
      case 'set-up-2fa':
        // The loader shows the waiting setup (QR code and secret) from here on, also after a mistyped code.
        await context.trpc.security.setUpTwoFactor();
        return json({ intent, setUpStarted: true } as const);
      case 'enable-2fa': {
        const code = (formText(form, 'code') ?? '').replace(/\s/g, '');
        const { recovery_codes } = await context.trpc.security.enableTwoFactor({ code });
        return json({ intent, recoveryCodes: recovery_codes } as const);
      }
      case 'disable-2fa': {
        const { otp, recovery_code } = secondFactor(formText(form, 'code'));
        await context.trpc.security.disableTwoFactor({
          password: formText(form, 'password') ?? '',
          code: otp,
          recovery_code,
        });
        return json({ intent, twoFactorOff: true } as const);
      }
      case 'end-other-sessions': {
        const { ended } = await context.trpc.security.endOtherSessions();
        return json({ intent, ended } as const);
      }
      default:
        return unknownIntent();
    }
  } catch (error) {
    const failure = describeFormFailure(context, error, SHOWN_FIELDS[intent ?? ''] ?? []);
    // One field takes the app's code or a recovery code: its error shows there, whichever it was.
    const { recovery_code, ...fieldErrors } = failure.fieldErrors;
    const codeError = recovery_code ?? (failure.code === 'otp_required' ? failure.formError : undefined);
    return json(
      { intent, ...failure, fieldErrors: codeError ? { ...fieldErrors, code: codeError } : fieldErrors },
      { status: failure.status },
    );
  }
}

export default function Security() {
  const { email, twoFactor, sessions, requirement } = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>();
  const navigation = useNavigation();
  const pendingIntent = navigation.state === 'submitting' ? String(navigation.formData?.get('intent') ?? '') : null;
  const failure = result && 'formError' in result ? result : null;

  return (
    <>
      <header className="page-header">
        <p className="eyebrow">Account</p>
        <h1>Security</h1>
        <p className="lead">
          Signed in as <strong>{email}</strong>. Every change here is recorded in the{' '}
          <Link to="/audit-log">audit log</Link>.
        </p>
      </header>

      {requirement?.state === 'refused' ? (
        <Alert tone="warning" title="Two-factor sign-in is required">
          <p>
            <strong>{requirement.account}</strong> requires two-factor sign-in of its members, and yours is off. Turn it
            on below to keep working in this account; until then its pages and its API answer you with{' '}
            <code>two_factor_required</code>. You can still switch to another of your accounts from the account menu.
          </p>
        </Alert>
      ) : requirement?.state === 'resolved' ? (
        <Alert tone="success">
          <p>
            Two-factor sign-in is on: you can work in <strong>{requirement.account}</strong> again.{' '}
            <Link to="/overview">Go to the overview</Link>.
          </p>
        </Alert>
      ) : null}

      {result && 'recoveryCodes' in result ? <RecoveryCodesPanel codes={result.recoveryCodes} email={email} /> : null}

      <ChangePasswordForm
        failure={failure?.intent === 'change-password' ? failure : null}
        changed={result !== undefined && 'passwordChanged' in result}
        pending={pendingIntent === 'change-password'}
      />

      <TwoFactorCard
        state={twoFactor}
        failure={failure}
        disabled={result !== undefined && 'twoFactorOff' in result}
        pendingIntent={pendingIntent}
      />

      <SessionsCard
        sessions={sessions}
        ended={result && 'ended' in result ? result.ended : null}
        pending={pendingIntent === 'end-other-sessions'}
      />
    </>
  );
}

export { RouteErrorBoundary as ErrorBoundary } from '../components/route-error-boundary.js';
