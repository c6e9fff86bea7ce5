import { Form, useNavigation } from '@remix-run/react';
import { Alert } from '../alert.js';

/**
 * The range form above a report (usage, ad report): From and To dates, one filter (a key, a campaign) and a submit
 * button, sent as GET so the range is in the address. `problem` is a refused range, said above the form.
 */
export interface DateRangeFormProps {
  /** Prefix of the inputs' ids, unique on the page. */
  id: string;
  from: string;
  to: string;
  /** The range the report shows, for the hint under the form. */
  shown: { from: string; to: string };
  filter: { name: string; label: string; allLabel: string; value: string; options: { value: string; label: string }[] };
  submitLabel: string;
  problem: string | null;
}

export function DateRangeForm({ id, from, to, shown, filter, submitLabel, problem }: DateRangeFormProps) {
  const loading = useNavigation().state === 'loading';
  return (
    <section className="card" aria-labelledby={`${id}-range-title`}>
      <h2 id={`${id}-range-title`} className="visually-hidden">
        Date range
      </h2>
      {problem ? <Alert tone="error">{problem} Showing the last 30 days instead.</Alert> : null}
      <Form method="get" className="usage-range">
        <div className="field">
          <label htmlFor={`${id}-from`} className="field__label">
            From
          </label>
          <input id={`${id}-from`} name="from" type="date" className="input" defaultValue={from} />
        </div>
        <div className="field">
          <label htmlFor={`${id}-to`} className="field__label">
            To
          </label>
          <input id={`${id}-to`} name="to" type="date" className="input" defaultValue={to} />
        </div>
        <div className="field">
          <label htmlFor={`${id}-${filter.name}`} className="field__label">
            {filter.label}
          </label>
          <select id={`${id}-${filter.name}`} name={filter.name} className="input" defaultValue={filter.value}>
            <option value="">{filter.allLabel}</option>
            {filter.options.map((option) => (
              <option key={option.value} value={option.value}>
                {option.label}
              </option>
            ))}
          </select>
        </div>
        <button type="submit" className="button button--primary" disabled={loading}>
          {loading ? 'Loading…' : submitLabel}
        </button>
      </Form>
      <p className="field__hint">
        {shown.from} to {shown.to}, both included; at most 366 days.
      </p>
    </section>
  );
}
