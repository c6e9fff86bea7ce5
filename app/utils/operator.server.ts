import { type AppLoadContext, json } from '@remix-run/node';
import { describeFormFailure, type FieldErrors, type FormFailure, formText } from './forms.server.js';
import { getAccount } from './session.server.js';

/** What an address no route claims answers ($.tsx): to anyone but an operator the console does not exist. */
export function notFound(): Response {
  return new Response('Not found', { status: 404 });
}

/**
 * For the console's loaders and actions: an operator goes on; anyone else, signed in or not, gets the plain 404 (no
 * sign-in prompt, no 403), as the operator API answers them.
 */
export async function requireOperator(context: AppLoadContext) {
  const account = await getAccount(context);
  if (!account?.operator) throw notFound();
  return account;
}

/** An operator procedure's 404 (an unknown account) is the page's 404; anything else propagates. */
export function rethrowNotFound(context: AppLoadContext, error: unknown): never {
  if (context.describeError(error).status === 404) throw notFound();
  throw error;
}

/** What an operator form's action answers: `form` names the form on the page, so the message shows beside it. */
export type OperatorResult = { form: string; done: string } | ({ form: string } & FormFailure);

/**
 * Runs one operator change: its success sentence, or the API's error (validation details next to `fields`, the
 * message as the form's alert), both tagged with the form they belong to.
 */
export async function operatorChange(
  context: AppLoadContext,
  form: string,
  fields: readonly string[],
  change: () => Promise<string>,
) {
  try {
    return json<OperatorResult>({ form, done: await change() });
  } catch (error) {
    const failure = describeFormFailure(context, error, ['reason', ...fields]);
    return json<OperatorResult>({ form, ...failure }, { status: failure.status });
  }
}

/** The answer to a form whose own fields were refused before any procedure ran. */
export function operatorFieldFailure(form: string, fieldErrors: FieldErrors) {
  return json<OperatorResult>(
    { form, status: 400, code: 'invalid_request', formError: 'Please correct the highlighted fields.', fieldErrors },
    { status: 400 },
  );
}

/**
 * A signed amount typed into a form ("+50", "-20", "12.50" with `cents`): whole units, or dollars as whole cents.
 * Blank, zero or anything else gets a sentence for its field.
 */
export function readSignedAmount(
  form: FormData,
  name: string,
  noun: string,
  unit: 'whole' | 'cents',
): { value: number; error?: undefined } | { value?: undefined; error: string } {
  const text = (formText(form, name) ?? '')
    .trim()
    .replace(/^([+-]?)\$/, '$1')
    .replace(/,/g, '');
  const pattern = unit === 'whole' ? /^[+-]?\d{1,7}$/ : /^[+-]?\d{1,7}(\.\d{1,2})?$/;
  if (text === '') return { error: `Enter ${noun}.` };
  if (!pattern.test(text))
    return {
      error:
        unit === 'whole'
          ? `Enter ${noun} as a whole number: 50 to add, -50 to take.`
          : `Enter ${noun} in dollars: 25 to add, -12.50 to take.`,
    };
  const value = unit === 'whole' ? Number(text) : Math.round(Number(text) * 100);
  if (value === 0) return { error: `Enter ${noun} other than 0.` };
  return { value };
}
