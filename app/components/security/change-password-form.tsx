import { Form } from '@remix-run/react';
import { useEffect, useRef } from 'react';
import { Alert } from '../alert.js';
import { Field } from '../field.js';
import type { SecurityFormFailure } from './types.js';

interface Props {
  failure: SecurityFormFailure | null;
  /** The password was just changed: the form empties and says what happened to the other sessions. */
  changed: boolean;
  pending: boolean;
}

/** Current and new password; a change signs out every other session of the user, and the form says so up front. */
export function ChangePasswordForm({ failure, changed, pending }: Props) {
  const form = useRef<HTMLFormElement>(null);
  useEffect(() => {
    if (changed) form.current?.reset();
  }, [changed]);
  return (
    <section className="card" aria-labelledby="password-title">
      <h2 id="password-title">Password</h2>
      <p className="muted">Changing it signs you out on every other browser and device; this one stays signed in.</p>
      <Form ref={form} method="post" className="stack security-form">
        <div aria-live="polite">
          {changed ? (
            <Alert tone="success">
              <p>Your password is changed. Every other session was signed out; this one stays signed in.</p>
            </Alert>
          ) : null}
        </div>
        {failure?.formError ? (
          <Alert tone="error">
            <p>{failure.formError}</p>
          </Alert>
        ) : null}
        <input type="hidden" name="intent" value="change-password" />
        <Field
          label="Current password"
          name="current_password"
          type="password"
          autoComplete="current-password"
          required
          maxLength={1024}
          error={failure?.fieldErrors.current_password}
        />
        <Field
          label="New password"
          name="new_password"
          type="password"
          autoComplete="new-password"
          required
          minLength={10}
          maxLength={1024}
          hint="At least 10 characters."
          error={failure?.fieldErrors.new_password}
        />
        <button type="submit" className="button button--primary" disabled={pending}>
          {pending ? 'Changing…' : 'Change password'}
        </button>
      </Form>
    </section>
  );
}
