import { Form } from '@remix-run/react';
import { Alert } from './alert.js';

/**
 * What a buy form shows after checkout answered email_unverified: why, where the mail is, and a button for a new
 * link. `mailFolder` is set when the server has no SMTP server and writes its e-mails as files there.
 */
export function ConfirmEmailNotice({
  email,
  sending,
  mailFolder,
}: {
  email: string;
  sending: boolean;
  mailFolder: string | null;
}) {
  return (
    <Alert tone="warning" title="Confirm your e-mail address first">
      <p>
        Buying needs a confirmed address, so receipts and payment notices reach you. Open the link we e-mailed to{' '}
        <strong>{email}</strong>.
      </p>
      {mailFolder ? (
        <p>
          This server has no SMTP server configured (<code>SMTP_URL</code>), so it sends no e-mail: each message is a
          file (<code>.eml</code>) in <code>{mailFolder}</code> on the server. Open the newest one and follow its link.
        </p>
      ) : null}
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
