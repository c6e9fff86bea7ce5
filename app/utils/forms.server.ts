import { type AppLoadContext, json } from '@remix-run/node';

/** A text field of a submitted form; absent or non-text (a file) reads as undefined. */
export function formText(form: FormData, name: string): string | undefined {
  const value = form.get(name);
  return typeof value === 'string' ? value : undefined;
}

export type FieldErrors = Record<string, string>;

export interface FormFailure {
  status: number;
  /** The error body's code, for pages that react to one (e.g. offering sign-in after a 409 at sign-up). */
  code: string;
  formError: string;
  fieldErrors: FieldErrors;
}

/**
 * What a form shows when a procedure refused the submission: each validation detail next to the input it names
 * (first message per field), and the error body's message as the alert. Details for fields the form does not show
 * are folded into the alert so nothing is lost.
 */
export function describeFormFailure(
  context: AppLoadContext,
  error: unknown,
  shownFields: readonly string[] = [],
): FormFailure {
  const described = context.describeError(error);
  const fieldErrors: FieldErrors = {};
  const otherProblems: string[] = [];
  for (const detail of described.details ?? []) {
    if (shownFields.includes(detail.path)) fieldErrors[detail.path] ??= detail.message;
    else otherProblems.push(detail.path ? `${detail.path}: ${detail.message}` : detail.message);
  }
  let formError = described.message;
  if (otherProblems.length > 0) formError = otherProblems.join(' ');
  else if (Object.keys(fieldErrors).length > 0) formError = 'Please correct the highlighted fields.';
  return { status: described.status, code: described.code, formError, fieldErrors };
}

export interface WholeNumberField {
  /** How the field is named in a sentence: "the number of credits". */
  noun: string;
  /** Blank means null (e.g. "no limit") instead of a missing value. */
  blankIsNull?: boolean;
}

/**
 * Whole numbers typed into a form, converted here and not by the procedure: a blank or non-numeric field gets a
 * sentence next to it ("Enter the number of credits."), never a schema message about NaN.
 */
export function readWholeNumbers<K extends string>(
  form: FormData,
  fields: Record<K, WholeNumberField>,
): { values: Record<K, number | null>; fieldErrors: FieldErrors } {
  const values = {} as Record<K, number | null>;
  const fieldErrors: FieldErrors = {};
  for (const [name, field] of Object.entries(fields) as Array<[K, WholeNumberField]>) {
    const text = (formText(form, name) ?? '').trim();
    values[name] = null;
    if (text === '') {
      if (!field.blankIsNull) fieldErrors[name] = `Enter ${field.noun}.`;
    } else if (!/^\d{1,9}$/.test(text)) {
      fieldErrors[name] = `Enter ${field.noun} as a whole number, such as 100.`;
    } else {
      values[name] = Number(text);
    }
  }
  return { values, fieldErrors };
}

/**
 * The end every form action shares: a procedure refused the submission, so the form comes back with the refusal
 * (its status, the alert, the errors beside the inputs named in `shownFields`) under the intent it was for.
 */
export function refusedForm(
  context: AppLoadContext,
  error: unknown,
  intent: string | undefined,
  shownFields: readonly string[] = [],
) {
  const failure = describeFormFailure(context, error, shownFields);
  return json({ intent, ...failure }, { status: failure.status });
}

/** The action's answer when fields were refused before any procedure ran. */
export function fieldFailure(fieldErrors: FieldErrors): FormFailure {
  return { status: 400, code: 'invalid_request', formError: 'Please correct the highlighted fields.', fieldErrors };
}

/** The action's answer to a post whose intent it does not know (a page left open across a deploy, a hand-made post). */
export function unknownIntent() {
  return json(
    {
      intent: 'unknown' as const,
      status: 400,
      code: 'invalid_request',
      formError: 'Unknown action. Reload the page and try again.',
      fieldErrors: {} as FieldErrors,
    },
    { status: 400 },
  );
}
