import { type ActionFunctionArgs, json, type LoaderFunctionArgs, type MetaFunction } from '@remix-run/node';
import { Form, Link, useActionData, useLoaderData, useNavigation } from '@remix-run/react';
import { Alert } from '../components/alert.js';
import { CopyButton } from '../components/copy-button.js';
import { DataTable } from '../components/data-table.js';
import { Field } from '../components/field.js';
import { formatTimestamp } from '../utils/format.js';
import { formText, unknownIntent, refusedForm } from '../utils/forms.server.js';
import { readIntentForm, requireAccount } from '../utils/session.server.js';
import { pageMeta } from '../utils/meta.js';

export const meta: MetaFunction = () =>
  pageMeta(
    'Webhook · Roomstage',
    'Where Roomstage sends events for this API key, its signing secret and recent deliveries.',
  );

function keyIdFrom(params: { id?: string }): number {
  const id = Number(params.id);
  if (!Number.isInteger(id) || id <= 0) throw new Response('Not found', { status: 404 });
  return id;
}

export async function loader({ context, request, params }: LoaderFunctionArgs) {
  await requireAccount(context, request);
  const id = keyIdFrom(params);
  try {
    const [webhook, { deliveries }, { keys }, policy] = await Promise.all([
      context.trpc.webhooks.get({ id }),
      context.trpc.webhooks.deliveries({ id, limit: 50 }),
      context.trpc.keys.list(),
      context.trpc.webhooks.policy(),
    ]);
    const key = keys.find((k) => k.id === id);
    return {
      webhook,
      deliveries,
      allowPrivateNetwork: policy.allow_private_network,
      key: key ? { id: key.id, name: key.name, prefix: key.prefix, mode: key.mode } : null,
    };
  } catch (error) {
    const described = context.describeError(error);
    if (described.status === 404) throw new Response('Not found', { status: 404 });
    throw error;
  }
}

export async function action({ context, request, params }: ActionFunctionArgs) {
  const id = keyIdFrom(params);
  const { form, intent } = await readIntentForm(context, request);
  try {
    switch (intent) {
      case 'save': {
        const webhook = await context.trpc.webhooks.put({
          id,
          url: formText(form, 'url') ?? '',
          enabled: form.get('enabled') === 'on',
        });
        return json({ intent, saved: webhook } as const);
      }
      case 'test':
        return json({ intent, test: await context.trpc.webhooks.test({ id }) } as const);
      case 'rotate':
        return json({ intent, rotated: await context.trpc.webhooks.rotateSecret({ id }) } as const);
      case 'retry': {
        const retried = await context.trpc.webhooks.retryDelivery({
          id,
          delivery_id: formText(form, 'delivery_id') ?? '',
        });
        return json({ intent, retried } as const);
      }
      default:
        return unknownIntent();
    }
  } catch (error) {
    return refusedForm(context, error, intent, intent === 'save' ? ['url', 'enabled'] : []);
  }
}

function When({ iso, empty = '—' }: { iso: string | null; empty?: string }) {
  return iso ? (
    <time dateTime={iso} title={iso}>
      {formatTimestamp(iso)}
    </time>
  ) : (
    <span className="muted">{empty}</span>
  );
}

const STATUS_TONE = { delivered: 'active', pending: 'test', failed: 'revoked' } as const;

export default function KeyWebhook() {
  const { webhook, deliveries, key, allowPrivateNetwork } = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>();
  const navigation = useNavigation();
  const pending = navigation.state === 'submitting' ? navigation.formData?.get('intent') : null;
  const failure = result && 'formError' in result ? result : null;
  const test = result && 'test' in result ? result.test : null;
  const keyLabel = key ? `${key.name} (${key.prefix}…)` : `key #${webhook.key_id}`;

  return (
    <>
      <header className="page-header">
        <p className="eyebrow">
          <Link to="/webhooks">Webhooks</Link> → {keyLabel}
        </p>
        <h1>Webhook</h1>
        <p className="lead">
          Roomstage POSTs events for this key (<code>staging.complete</code>, <code>claim.redeemed</code>, credit
          alerts…) to your url, signed with <code>X-Webhook-Signature: sha256=&lt;HMAC-SHA256 of the body&gt;</code>.
          Failed deliveries are retried for about a day; dedupe on the event <code>id</code>.
        </p>
      </header>

      <div aria-live="polite" className="stack">
        {webhook.disabled_reason && !webhook.enabled ? (
          <Alert tone="warning" title="Switched off by Roomstage">
            {webhook.disabled_reason}
          </Alert>
        ) : null}
        {failure && failure.intent !== 'save' ? <Alert tone="error">{failure.formError}</Alert> : null}
        {result && 'saved' in result ? (
          <Alert tone="success">
            Webhook saved{result.saved.enabled ? ' and enabled' : ' (disabled: events are not sent)'}.
          </Alert>
        ) : null}
        {result && 'rotated' in result ? (
          <Alert tone="success">
            New signing secret created. For 24 hours deliveries also carry a signature from the old one in
            webhook-signature.
          </Alert>
        ) : null}
        {result && 'retried' in result ? (
          <Alert tone="success">Delivery {result.retried.id} is queued again.</Alert>
        ) : null}
      </div>

      <section className="card" aria-labelledby="webhook-settings">
        <h2 id="webhook-settings">Endpoint</h2>
        <Form method="post" className="stack">
          <input type="hidden" name="intent" value="save" />
          <Field
            label="Url"
            name="url"
            type="url"
            required
            placeholder="https://example.com/roomstage/webhooks"
            defaultValue={webhook.url ?? ''}
            error={failure?.intent === 'save' ? failure.fieldErrors.url : undefined}
            hint={
              allowPrivateNetwork
                ? 'http or https. This server also accepts private and loopback addresses (the operator allows them).'
                : 'http or https, on a public address; private and loopback addresses are refused.'
            }
          />
          <label className="field">
            <span>
              <input type="checkbox" name="enabled" defaultChecked={webhook.url ? webhook.enabled : true} /> Enabled:
              send events to this url
            </span>
          </label>
          {failure?.intent === 'save' && Object.keys(failure.fieldErrors).length === 0 ? (
            <Alert tone="error">{failure.formError}</Alert>
          ) : null}
          <div className="actions">
            <button type="submit" className="button button--primary" disabled={pending === 'save'}>
              {pending === 'save' ? 'Saving…' : 'Save'}
            </button>
          </div>
        </Form>
      </section>

      {webhook.secret ? (
        <section className="card" aria-labelledby="webhook-secret">
          <h2 id="webhook-secret">Signing secret</h2>
          <p>
            Verify each delivery by computing HMAC-SHA256 of the raw body with this secret and comparing it in constant
            time, or pass this secret to any Standard Webhooks library (the <code>webhook-signature</code> header).
          </p>
          <details>
            <summary>Reveal secret</summary>
            <div className="copy-row">
              <input
                id="webhook-secret-value"
                className="input input--code"
                readOnly
                value={webhook.secret}
                aria-label="Signing secret"
              />
              <CopyButton targetId="webhook-secret-value" />
            </div>
          </details>
          <Form method="post" className="actions">
            <input type="hidden" name="intent" value="rotate" />
            <button type="submit" className="button button--danger-ghost" disabled={pending === 'rotate'}>
              {pending === 'rotate' ? 'Rotating…' : 'Rotate secret'}
            </button>
          </Form>
        </section>
      ) : webhook.url ? (
        <section className="card" aria-labelledby="webhook-secret">
          <h2 id="webhook-secret">Signing secret</h2>
          <p>Only owners, admins and developers of this account see the signing secret.</p>
        </section>
      ) : null}

      <section className="card" aria-labelledby="webhook-test">
        <h2 id="webhook-test">Send a test event</h2>
        <p>
          Sends one signed <code>test.ping</code> now, even while the webhook is disabled, and shows what your endpoint
          answered.
        </p>
        <Form method="post" className="actions">
          <input type="hidden" name="intent" value="test" />
          <button
            type="submit"
            className="button"
            disabled={!webhook.url || pending === 'test'}
            aria-describedby={webhook.url ? undefined : 'webhook-test-why'}
          >
            {pending === 'test' ? 'Sending…' : 'Send test'}
          </button>
          {webhook.url ? null : (
            <p id="webhook-test-why" className="field__hint">
              Save a url under Endpoint first: the test event is sent there.
            </p>
          )}
        </Form>
        {test ? (
          <Alert tone={test.delivered ? 'success' : 'error'} title={test.delivered ? 'Delivered' : 'Not delivered'}>
            <p>
              {test.status_code !== null ? `HTTP ${test.status_code}` : 'No response'} in {test.duration_ms} ms · event{' '}
              <code>{test.event_id}</code>
              {test.error ? ` · ${test.error}` : ''}
            </p>
          </Alert>
        ) : null}
      </section>

      <section className="card" aria-labelledby="webhook-deliveries">
        <h2 id="webhook-deliveries">Recent deliveries</h2>
        <DataTable
          variant="key-table"
          rows={deliveries}
          columns={[
            'Event',
            'Status',
            'Attempts',
            'Last response',
            'Next attempt (UTC)',
            'Created (UTC)',
            { name: 'Actions', hidden: true },
          ]}
          empty={
            <>
              No deliveries yet.{' '}
              {webhook.url
                ? 'Send a test event above, or stage an image with this key.'
                : 'Save a url above, then send a test event.'}
            </>
          }
        >
          {(delivery) => (
            <tr key={delivery.id}>
              <th scope="row" data-label="Event">
                <code className="event-name">{delivery.event}</code>
                <span className="event-id muted">{delivery.event_id}</span>
              </th>
              <td data-label="Status">
                <span className={`badge badge--${STATUS_TONE[delivery.status]}`}>{delivery.status}</span>
              </td>
              <td data-label="Attempts">{delivery.attempts}</td>
              <td data-label="Last response">
                {delivery.last_status_code !== null ? `HTTP ${delivery.last_status_code}` : null}
                {delivery.last_error ? <span className="muted"> {delivery.last_error}</span> : null}
                {delivery.last_status_code === null && !delivery.last_error ? <span className="muted">—</span> : null}
              </td>
              <td data-label="Next attempt (UTC)">
                <When iso={delivery.status === 'pending' ? delivery.next_attempt_at : null} />
              </td>
              <td data-label="Created (UTC)">
                <When iso={delivery.created_at} />
              </td>
              <td className="key-table__actions">
                <Form method="post">
                  <input type="hidden" name="intent" value="retry" />
                  <input type="hidden" name="delivery_id" value={delivery.id} />
                  <button type="submit" className="button button--small" disabled={pending === 'retry'}>
                    {pending === 'retry' && navigation.formData?.get('delivery_id') === delivery.id
                      ? 'Resending…'
                      : 'Resend'}
                    <span className="visually-hidden">
                      {' '}
                      {delivery.event} event {delivery.event_id}
                    </span>
                  </button>
                </Form>
              </td>
            </tr>
          )}
        </DataTable>
      </section>
    </>
  );
}

export { RouteErrorBoundary as ErrorBoundary } from '../components/route-error-boundary.js';
