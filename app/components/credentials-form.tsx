import { Form, Link, useNavigation } from '@remix-run/react';
import { Alert } from './alert.js';
import { Field } from './field.js';

export interface CredentialsFormState {
  formError?: string;
  fieldErrors?: Record<string, string>;
  code?: string;
  email?: string;
  /** Sign-in asked for the second factor: the form shows the code field too. */
  otpRequired?: boolean;
}

interface Props {
  kind: 'signup' | 'login';
  redirectTo: string | null;
  state: CredentialsFormState | undefined;
}

/** The e-mail + password form shared by sign-up and sign-in; the server is the one that validates. */
export function CredentialsForm({ kind, redirectTo, state }: Props) {
  const navigation = useNavigation();
  const submitting =
    navigation.state !== 'idle' && navigation.formMethod === 'POST' && navigation.formAction?.startsWith(`/${kind}`);
  const otherKind = kind === 'signup' ? 'login' : 'signup';
  const otherHref = redirectTo ? `/${otherKind}?${new URLSearchParams({ redirectTo })}` : `/${otherKind}`;
  const isSignup = kind === 'signup';
  const askCode = !isSignup && state?.otpRequired === true;

  return (
    <Form method="post" className="stack">
      {state?.code === 'otp_required' ? (
        // Nothing went wrong: the password was right and the second step follows.
        <Alert tone="info" title="One more step">
          <p>{state.formError}</p>
        </Alert>
      ) : state?.formError ? (
        <Alert tone="error">
          <p>{state.formError}</p>
          {isSignup && state.code === 'conflict' ? (
            <p>
              <Link to={otherHref}>Sign in to your account</Link>
            </p>
          ) : null}
          {state.code === 'rate_limited' ? (
            <p>We pause sign-in for a moment after many attempts, to keep accounts safe from password guessing.</p>
          ) : null}
        </Alert>
      ) : null}
      {redirectTo ? <input type="hidden" name="redirectTo" value={redirectTo} /> : null}
      <Field
        label="E-mail"
        name="email"
        type="email"
        autoComplete={isSignup ? 'email' : 'username'}
        inputMode="email"
        required
        maxLength={254}
        defaultValue={state?.email}
        error={state?.fieldErrors?.email}
        autoFocus={!state?.email}
      />
      <Field
        label="Password"
        name="password"
        type="password"
        autoComplete={isSignup ? 'new-password' : 'current-password'}
        required
        minLength={isSignup ? 10 : undefined}
        maxLength={1024}
        hint={isSignup ? 'At least 10 characters.' : undefined}
        error={state?.fieldErrors?.password}
        // The password is never sent back into the page, so after "code needed" it is the next thing to type.
        autoFocus={askCode}
      />
      {askCode ? (
        <Field
          label="Authentication code"
          name="code"
          autoComplete="one-time-code"
          required
          maxLength={32}
          hint="The 6-digit code from your authenticator app, or one of your recovery codes."
          error={state?.fieldErrors?.code}
        />
      ) : null}
      <button type="submit" className="button button--primary button--block" disabled={submitting}>
        {isSignup ? (submitting ? 'Creating account…' : 'Create account') : submitting ? 'Signing in…' : 'Sign in'}
      </button>
      {isSignup ? null : (
        <p className="form-footer">
          <Link to="/forgot-password">Forgot your password?</Link>
        </p>
      )}
      <p className="form-footer">
        {isSignup ? 'Already have an account? ' : 'New to Roomstage? '}
        <Link to={otherHref}>{isSignup ? 'Sign in' : 'Create an account'}</Link>
      </p>
    </Form>
  );
}
