import { Form } from '@remix-run/react';
import { Alert } from '../alert.js';
import { Field } from '../field.js';

interface Props {
  pending: boolean;
  failure: { formError: string; fieldErrors: Record<string, string> } | null;
  /** The account's first key ever comes with free credits: say so before it is created. */
  isFirstKey: boolean;
}

export function CreateKeyForm({ pending, failure, isFirstKey }: Props) {
  const modeError = failure?.fieldErrors.mode;
  return (
    <section className="card" aria-labelledby="create-key-title">
      <h2 id="create-key-title">Create a key</h2>
      {isFirstKey ? <p className="muted">Your first key comes with 10 free credits.</p> : null}
      {failure ? <Alert tone="error">{failure.formError}</Alert> : null}
      <Form method="post" className="create-key-form">
        <input type="hidden" name="intent" value="create" />
        <Field
          label="Name"
          name="name"
          maxLength={64}
          placeholder="Default"
          autoComplete="off"
          hint="Helps you recognise the key later, e.g. “Production server”."
          error={failure?.fieldErrors.name}
        />
        <div className={`field${modeError ? ' field--invalid' : ''}`}>
          <label htmlFor="field-mode" className="field__label">
            Mode
          </label>
          <select
            id="field-mode"
            name="mode"
            className="input"
            defaultValue="live"
            aria-invalid={modeError ? true : undefined}
            aria-describedby={modeError ? 'field-mode-error' : 'field-mode-hint'}
          >
            <option value="live">Live (sk_live_…)</option>
            <option value="test">Test (sk_test_…)</option>
          </select>
          {modeError ? (
            <p id="field-mode-error" className="field__error">
              {modeError}
            </p>
          ) : (
            <p id="field-mode-hint" className="field__hint">
              Only the label differs.
            </p>
          )}
        </div>
        <div className="create-key-form__submit">
          <button type="submit" className="button button--primary" disabled={pending}>
            {pending ? 'Creating…' : 'Create key'}
          </button>
        </div>
      </Form>
    </section>
  );
}
