import type { FieldErrors } from './forms.server.js';
import { formText } from './forms.server.js';

export interface DollarField {
  /** How the field is named in a sentence: "the total budget". */
  noun: string;
  /** Blank means null ("no daily limit") instead of a missing value. */
  blankIsNull?: boolean;
}

/**
 * Dollar amounts typed into a form ("12", "12.5", "$1,200.00"), converted here to whole cents: anything else gets a
 * sentence next to its field instead of a schema message about numbers.
 */
export function readDollars<K extends string>(
  form: FormData,
  fields: Record<K, DollarField>,
): { values: Record<K, number | null>; fieldErrors: FieldErrors } {
  const values = {} as Record<K, number | null>;
  const fieldErrors: FieldErrors = {};
  for (const [name, field] of Object.entries(fields) as Array<[K, DollarField]>) {
    const text = (formText(form, name) ?? '').trim().replace(/^\$/, '').replace(/,/g, '');
    values[name] = null;
    if (text === '') {
      if (!field.blankIsNull) fieldErrors[name] = `Enter ${field.noun}.`;
    } else if (!/^\d{1,7}(\.\d{1,2})?$/.test(text)) {
      fieldErrors[name] = `Enter ${field.noun} in dollars, such as 25 or 12.50.`;
    } else {
      const [whole, fraction = ''] = text.split('.');
      values[name] = Number(whole) * 100 + Number(fraction.padEnd(2, '0'));
    }
  }
  return { values, fieldErrors };
}

/**
 * A date from `<input type="date">` as the ISO time the API takes: the start of that UTC day, or with `endOfDay` the
 * start of the next one (a campaign that ends "on the 30th" runs through the 30th). Blank is undefined.
 */
export function readDay(
  form: FormData,
  name: string,
  noun: string,
  fieldErrors: FieldErrors,
  endOfDay = false,
): string | undefined {
  const text = (formText(form, name) ?? '').trim();
  if (text === '') return undefined;
  const day = /^\d{4}-\d{2}-\d{2}$/.test(text) ? Date.parse(`${text}T00:00:00Z`) : Number.NaN;
  if (Number.isNaN(day)) {
    fieldErrors[name] = `Enter ${noun} as a date, such as 2026-12-01.`;
    return undefined;
  }
  return new Date(day + (endOfDay ? 86_400_000 : 0)).toISOString();
}

/** The values of a repeatable field (checkboxes) that are among `allowed`; anything else is dropped. */
export function formChoices<T extends string>(form: FormData, name: string, allowed: readonly T[]): T[] {
  return form
    .getAll(name)
    .filter((value): value is T => typeof value === 'string' && (allowed as readonly string[]).includes(value));
}
