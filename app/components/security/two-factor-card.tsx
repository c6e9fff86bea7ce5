import { Form } from '@remix-run/react';
import { formatTimestamp } from '../../utils/format.js';
import { Alert } from '../alert.js';
import { CopyButton } from '../copy-button.js';
import { Field } from '../field.js';
import type { SecurityFormFailure, TwoFactorState } from './types.js';

interface Props {
  state: TwoFactorState;
  /** The last submission of one of this card's forms, when it was refused. */
  failure: SecurityFormFailure | null;
  /** Two-factor sign-in was just turned off. */
  disabled: boolean;
  pendingIntent: string | null;
}

function IntentButton({
  intent,
  label,
  busy,
  ghost,
}: {
  intent: string;
  label: string;
  busy: boolean;
  ghost?: boolean;
}) {
  return (
    <Form method="post">
      <input type="hidden" name="intent" value={intent} />
      <button type="submit" className={`button ${ghost ? 'button--ghost' : 'button--primary'}`} disabled={busy}>
        {label}
      </button>
    </Form>
  );
}

/** The setup waiting for its first code: the QR code (drawn by the server), the secret to type, and the code field. */
function PendingSetup({
  setup,
  failure,
  busy,
}: {
  setup: NonNullable<TwoFactorState['pending_setup']>;
  failure: SecurityFormFailure | null;
  busy: boolean;
}) {
  return (
    <div className="stack">
      <ol className="two-factor-steps">
        <li>Open an authenticator app (such as 1Password, Google Authenticator or Authy) and add an account.</li>
        <li>Scan this QR code, or type the secret key below.</li>
        <li>Enter the 6-digit code the app shows.</li>
      </ol>
      <div className="two-factor-setup">
        <div
          className="qr-code"
          role="img"
          aria-label="QR code of your two-factor secret, for an authenticator app"
          // The server renders this SVG from the otpauth URL with the qrcode library; no user text is in it.
          // biome-ignore lint/security/noDangerouslySetInnerHtml: markup made by the server's QR encoder
          dangerouslySetInnerHTML={{ __html: setup.qr_svg }}
        />
        <div className="stack two-factor-setup__form">
          <div>
            <label htmlFor="two-factor-secret" className="field__label">
              Secret key
            </label>
            <div className="copy-row">
              <input
                id="two-factor-secret"
                className="input input--code"
                readOnly
                value={setup.secret}
                spellCheck={false}
                autoComplete="off"
                onFocus={(event) => event.currentTarget.select()}
              />
              <CopyButton targetId="two-factor-secret" label="Copy key" />
            </div>
          </div>
          <Form method="post" className="stack">
            {failure?.formError && !failure.fieldErrors.code ? (
              <Alert tone="error">
                <p>{failure.formError}</p>
              </Alert>
            ) : null}
            <input type="hidden" name="intent" value="enable-2fa" />
            <Field
              label="Code from the app"
              name="code"
              inputMode="numeric"
              autoComplete="one-time-code"
              required
              maxLength={16}
              hint="6 digits; it changes every 30 seconds."
              error={failure?.fieldErrors.code}
            />
            <button type="submit" className="button button--primary" disabled={busy}>
              {busy ? 'Checking…' : 'Turn on two-factor sign-in'}
            </button>
          </Form>
        </div>
      </div>
    </div>
  );
}

/** Off, being set up, or on: the card shows the one next step, each a plain form. */
export function TwoFactorCard({ state, failure, disabled, pendingIntent }: Props) {
  const formFailure = (intent: string) => (failure?.intent === intent ? failure : null);
  const setUpFailure = formFailure('set-up-2fa');
  const disableFailure = formFailure('disable-2fa');
  return (
    <section className="card" aria-labelledby="two-factor-title">
      <h2 id="two-factor-title">Two-factor sign-in</h2>
      {disabled ? (
        <Alert tone="success">
          <p>Two-factor sign-in is off. Your recovery codes no longer work.</p>
        </Alert>
      ) : null}
      {setUpFailure ? (
        <Alert tone="error">
          <p>{setUpFailure.formError}</p>
        </Alert>
      ) : null}
      {state.enabled ? (
        <div className="stack">
          <p>
            <strong>On</strong>
            {state.enabled_at ? ` since ${formatTimestamp(state.enabled_at)} (UTC)` : ''}: signing in asks for a code
            from your authenticator app. {state.recovery_codes_remaining} of 10 recovery codes are unused.
          </p>
          <Form method="post" className="stack security-form">
            <h3>Turn two-factor sign-in off</h3>
            {disableFailure?.formError && !disableFailure.fieldErrors.code ? (
              <Alert tone="error">
                <p>{disableFailure.formError}</p>
              </Alert>
            ) : null}
            <input type="hidden" name="intent" value="disable-2fa" />
            <Field
              label="Password"
              name="password"
              type="password"
              autoComplete="current-password"
              required
              maxLength={1024}
              error={disableFailure?.fieldErrors.password}
            />
            <Field
              label="Authentication code"
              name="code"
              autoComplete="one-time-code"
              required
              maxLength={32}
              hint="The 6-digit code from your authenticator app, or one of your recovery codes."
              error={disableFailure?.fieldErrors.code}
            />
            <button type="submit" className="button button--danger" disabled={pendingIntent === 'disable-2fa'}>
              {pendingIntent === 'disable-2fa' ? 'Turning off…' : 'Turn off two-factor sign-in'}
            </button>
          </Form>
        </div>
      ) : state.pending_setup ? (
        <div className="stack">
          <PendingSetup
            setup={state.pending_setup}
            failure={formFailure('enable-2fa')}
            busy={pendingIntent === 'enable-2fa'}
          />
          <p className="muted">Lost the QR code, or scanned it into the wrong app? Start again with a new secret.</p>
          <IntentButton intent="set-up-2fa" label="Start over" busy={pendingIntent === 'set-up-2fa'} ghost />
        </div>
      ) : (
        <div className="stack">
          <p>
            Off. With two-factor sign-in, signing in needs a code from an app on your phone as well as your password, so
            a stolen password alone does not open your account.
          </p>
          <IntentButton
            intent="set-up-2fa"
            label={pendingIntent === 'set-up-2fa' ? 'Starting…' : 'Set up two-factor sign-in'}
            busy={pendingIntent === 'set-up-2fa'}
          />
        </div>
      )}
    </section>
  );
}
