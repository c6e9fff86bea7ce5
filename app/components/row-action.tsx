import { Form } from '@remix-run/react';

/**
 * One action on one row of a table (pause, resume, archive): a small POST form with the row's `id` and the
 * `intent`, its button naming the row for screen readers ("Pause Spring sofas").
 */
export function RowAction({
  id,
  intent,
  label,
  rowName,
  ghost = false,
}: {
  id: string;
  intent: string;
  label: string;
  rowName: string;
  ghost?: boolean;
}) {
  return (
    <Form method="post">
      <input type="hidden" name="id" value={id} />
      <button
        type="submit"
        name="intent"
        value={intent}
        className={ghost ? 'button button--small button--ghost' : 'button button--small'}
      >
        {label}
        <span className="visually-hidden"> {rowName}</span>
      </button>
    </Form>
  );
}

/** Pause or resume, whichever applies to a row whose status is `active` or `paused`. */
export function PauseResumeAction({
  id,
  status,
  rowName,
}: {
  id: string;
  status: 'active' | 'paused';
  rowName: string;
}) {
  const pausing = status === 'active';
  return (
    <RowAction id={id} intent={pausing ? 'pause' : 'resume'} label={pausing ? 'Pause' : 'Resume'} rowName={rowName} />
  );
}
