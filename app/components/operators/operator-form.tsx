import { Form, useNavigation } from '@remix-run/react';
import type { ReactNode } from 'react';
import { Alert } from '../alert.js';
import { Field } from '../field.js';

/** An operator action's answer as the page receives it (app/utils/operator.server.ts `OperatorResult`). */
export type OperatorFormResult =
  | { form: string; done: string }
  | { form: string; formError: string; fieldErrors: Record<string, string> }
  | undefined;

interface Props {
  /** Names this form on its page: the action's answer carries it back, so the message shows here only. */
  form: string;
  title: string;
  /** The last action's answer, whichever form it was for. */
  result: OperatorFormResult;
  /** The form's own fields, given the errors the server found in them. */
  fields?: (errors: Record<string, string>) => ReactNode;
  /** The submit buttons: `name="intent"` where one form does two things (reject or restore). */
  buttons: (busy: boolean) => ReactNode;
  hidden?: Record<string, string>;
}

/**
 * One operator change: its fields, the reason every change needs (kept in the account's audit log), and the success
 * sentence or the API's error right beside them. A plain post, so it works without JavaScript.
 */
export function OperatorForm({ form, title, result, fields, buttons, hidden = {} }: Props) {
  const navigation = useNavigation();
  const busy = navigation.state === 'submitting' && navigation.formData?.get('form') === form;
  const mine = result?.form === form ? result : undefined;
  const errors = mine && 'fieldErrors' in mine ? mine.fieldErrors : {};
  const titleId = `${form}-title`;
  return (
    <Form method="post" className="stack operator-form" aria-labelledby={titleId}>
      <h3 id={titleId}>{title}</h3>
      <input type="hidden" name="form" value={form} />
      {Object.entries(hidden).map(([name, value]) => (
        <input key={name} type="hidden" name={name} value={value} />
      ))}
      {fields?.(errors)}
      <Field
        label="Reason"
        name="reason"
        inputId={`${form}-reason`}
        required
        maxLength={500}
        autoComplete="off"
        hint="Kept in the account’s audit log."
        error={errors.reason}
      />
      <OperatorMessage form={form} result={result} />
      <div className="inline-actions">{buttons(busy)}</div>
    </Form>
  );
}

/** The success sentence or the error of the last action, if it was `form`'s. */
export function OperatorMessage({ form, result }: { form: string; result: OperatorFormResult }) {
  const mine = result?.form === form ? result : undefined;
  return (
    <div aria-live="polite" className="stack">
      {mine && 'formError' in mine ? <Alert tone="error">{mine.formError}</Alert> : null}
      {mine && 'done' in mine ? <Alert tone="success">{mine.done}</Alert> : null}
    </div>
  );
}

/** A labelled `<select>` in an operator form (the purchase to refund, the product to review, the payout to settle). */
export function OperatorSelect(props: {
  id: string;
  name: string;
  label: string;
  options: readonly { value: string; label: string }[];
  error?: string;
}) {
  const { id, name, label, options, error } = props;
  return (
    <div className={`field${error ? ' field--invalid' : ''}`}>
      <label htmlFor={id} className="field__label">
        {label}
      </label>
      <select
        id={id}
        name={name}
        className="input"
        required
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? `${id}-error` : undefined}
      >
        {options.map((option) => (
          <option key={option.value} value={option.value}>
            {option.label}
          </option>
        ))}
      </select>
      {error ? (
        <p id={`${id}-error`} className="field__error">
          {error}
        </p>
      ) : null}
    </div>
  );
}
