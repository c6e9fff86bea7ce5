import { Form } from '@remix-run/react';
import { Alert } from './alert.js';

/** What a buy form shows after checkout answered email_unverified: why, and a button for a new link. */
export function ConfirmEmailNotice({ email, sending }: { email: string; sending: boolean }) {
  return (
    <Alert tone="warning" title="Confirm your e-mail address first">
      <p>
        Buying needs a confirmed address, so receipts and payment notices reach you. Open the link we e-mailed to{' '}
        <strong>{email}</strong>.
      </p>
      <Form method="post">
        <input type="hidden" name="intent" value="resend-verification" />
        <button type="submit" className="button button--small" disabled={sending}>
          Send the confirmation e-mail again
        </button>
      </Form>
    </Alert>
  );
}

export const CONFIRMATION_SENT = 'We sent a new confirmation link. Open it, then come back here to pay.';
