import type { AppLoadContext } from '@remix-run/node';

/** A text field of a submitted form; absent or non-text (a file) reads as undefined. */
export function formText(form: FormData, name: string): string | undefined {
  const value = form.get(name);
  return typeof value === 'string' ? value : undefined;
}

export type FieldErrors = Record<string, string>;

export interface FormFailure {
  status: number;
  /** CONTRACT §1 code, for pages that react to one (e.g. offering sign-in after a 409 at sign-up). */
  code: string;
  formError: string;
  fieldErrors: FieldErrors;
}

/**
 * What a form shows when a procedure refused the submission: each validation detail next to the input it names
 * (first message per field), and the CONTRACT §1 message as the alert. Details for fields the form does not show
 * are folded into the alert so nothing is lost.
 */
export function describeFormFailure(context: AppLoadContext, error: unknown, shownFields: readonly string[] = []): FormFailure {
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
