import { type ActionFunctionArgs, json, type LoaderFunctionArgs, type MetaFunction } from '@remix-run/node';
import { useActionData, useLoaderData, useNavigation } from '@remix-run/react';
import { Alert } from '../components/alert.js';
import { CreateKeyForm } from '../components/keys/create-key-form.js';
import { KeyTable } from '../components/keys/key-table.js';
import { NewKeyPanel } from '../components/keys/new-key-panel.js';
import { formText, unknownIntent, refusedForm } from '../utils/forms.server.js';
import { readIntentForm, requireAccount } from '../utils/session.server.js';
import { pageMeta } from '../utils/meta.js';

export const meta: MetaFunction = () =>
  pageMeta('API keys · Roomstage', 'Create, name and revoke the API keys your software uses to call Roomstage.');

export async function loader({ context, request }: LoaderFunctionArgs) {
  await requireAccount(context, request);
  const { keys } = await context.trpc.keys.list();
  return { keys, origin: new URL(request.url).origin };
}

export async function action({ context, request }: ActionFunctionArgs) {
  const { form, intent } = await readIntentForm(context, request);
  try {
    switch (intent) {
      case 'create': {
        const name = formText(form, 'name')?.trim();
        // A blank name means "use the default"; the procedure validates both fields.
        const mode = formText(form, 'mode') as 'live' | 'test' | undefined;
        const created = await context.trpc.keys.create({ name: name || undefined, mode });
        return json({ intent, created } as const, { status: 201 });
      }
      case 'revoke': {
        const id = Number(formText(form, 'id'));
        const revoked = await context.trpc.keys.revoke({ id });
        return json({ intent, revoked } as const);
      }
      default:
        return unknownIntent();
    }
  } catch (error) {
    return refusedForm(context, error, intent, intent === 'create' ? ['name', 'mode'] : []);
  }
}

export default function Keys() {
  const { keys, origin } = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>();
  const navigation = useNavigation();
  const pendingIntent = navigation.state === 'submitting' ? navigation.formData?.get('intent') : null;

  const created = result && 'created' in result ? result.created : null;
  const revoked = result && 'revoked' in result ? result.revoked : null;
  const failure = result && 'formError' in result ? result : null;
  const revokedName = revoked ? keys.find((key) => key.id === revoked.id)?.name : undefined;

  return (
    <>
      <header className="page-header">
        <p className="eyebrow">Settings → API</p>
        <h1>API keys</h1>
        <p className="lead">
          API keys let your software call the Roomstage REST API. Send one as{' '}
          <code>Authorization: Bearer sk_live_…</code>; see the <a href="/docs">API reference</a>. Live and test keys
          spend the same credits.
        </p>
      </header>

      <div aria-live="polite" className="stack">
        {/* Create errors sit inside the create form; everything else is reported here. */}
        {failure && failure.intent !== 'create' ? <Alert tone="error">{failure.formError}</Alert> : null}
        {revoked ? (
          <Alert tone="success">
            Key {revokedName ? <strong>“{revokedName}”</strong> : `#${revoked.id}`} is revoked. Requests that use it are
            refused from now on.
          </Alert>
        ) : null}
      </div>

      {created ? <NewKeyPanel key={`new-key-${created.id}`} created={created} origin={origin} /> : null}

      <CreateKeyForm
        // A fresh, empty form after each key created.
        key={`create-form-after-${created?.id ?? 'none'}`}
        pending={pendingIntent === 'create'}
        failure={failure && failure.intent === 'create' ? failure : null}
        isFirstKey={keys.length === 0}
      />

      <section className="card" aria-labelledby="keys-title">
        <h2 id="keys-title">Your keys</h2>
        <KeyTable keys={keys} revokingId={pendingIntent === 'revoke' ? Number(navigation.formData?.get('id')) : null} />
      </section>
    </>
  );
}

/** A failed load (e.g. the database is away) keeps the header and offers a way on. */
export { RouteErrorBoundary as ErrorBoundary } from '../components/route-error-boundary.js';
