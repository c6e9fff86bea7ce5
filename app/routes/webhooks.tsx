import type { LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Link, useLoaderData } from '@remix-run/react';
import { Badge } from '../components/badge.js';
import { DataTable } from '../components/data-table.js';
import { requireAccount } from '../utils/session.server.js';
import { pageMeta } from '../utils/meta.js';

export const meta: MetaFunction = () =>
  pageMeta(
    'Webhooks · Roomstage',
    'The webhook of each API key: where Roomstage sends events and whether deliveries succeed.',
  );

export async function loader({ context, request }: LoaderFunctionArgs) {
  await requireAccount(context, request);
  const { keys } = await context.trpc.keys.list();
  const rows = await Promise.all(
    keys.map(async (key) => ({ key, webhook: await context.trpc.webhooks.get({ id: key.id }) })),
  );
  return {
    rows: rows.map(({ key, webhook }) => {
      return {
        id: key.id,
        name: key.name,
        prefix: key.prefix,
        keyStatus: key.status,
        url: webhook.url,
        enabled: webhook.enabled,
        disabledReason: webhook.disabled_reason ?? null,
      };
    }),
  };
}

function WebhookState({
  url,
  enabled,
  disabledReason,
}: {
  url: string | null;
  enabled: boolean;
  disabledReason: string | null;
}) {
  if (!url) return <span className="muted">Not set up</span>;
  if (enabled) return <Badge tone="active">enabled</Badge>;
  return (
    <>
      <Badge tone="revoked">off</Badge>
      {disabledReason ? <span className="muted cell-note">{disabledReason}</span> : null}
    </>
  );
}

/** Every key's webhook at a glance; each row leads to the key's webhook page (url, secret, test, deliveries). */
export default function Webhooks() {
  const { rows } = useLoaderData<typeof loader>();
  return (
    <>
      <header className="page-header">
        <p className="eyebrow">Staging</p>
        <h1>Webhooks</h1>
        <p className="lead">
          Each API key has one webhook: Roomstage POSTs signed events (<code>staging.complete</code>,{' '}
          <code>claim.redeemed</code>, credit alerts) to its url as they happen.
        </p>
      </header>

      <section className="card" aria-labelledby="webhooks-title">
        <h2 id="webhooks-title">Webhooks by key</h2>
        <DataTable
          rows={rows}
          columns={['Key', 'Url', 'Webhook', { name: 'Actions', hidden: true }]}
          empty={
            <>
              No API keys yet, so no webhooks. <Link to="/keys">Create a key</Link>, then set up its webhook here.
            </>
          }
        >
          {(row) => (
            <tr key={row.id} className={row.keyStatus === 'revoked' ? 'is-revoked' : undefined}>
              <th scope="row">
                {row.name}
                <span className="cell-note">
                  <code className="nowrap">{row.prefix}…</code>
                  {row.keyStatus === 'revoked' ? ' · revoked key' : null}
                </span>
              </th>
              <td className="cell-url" data-label="Url">
                {row.url ? <code>{row.url}</code> : <span className="muted">—</span>}
              </td>
              <td data-label="Webhook">
                <WebhookState url={row.url} enabled={row.enabled} disabledReason={row.disabledReason} />
              </td>
              <td className="cell-actions">
                <Link to={`/keys/${row.id}/webhook`} className="button button--small">
                  {row.url ? 'Open' : 'Set up'}
                  <span className="visually-hidden"> the webhook of key “{row.name}”</span>
                </Link>
              </td>
            </tr>
          )}
        </DataTable>
      </section>
    </>
  );
}

export { RouteErrorBoundary as ErrorBoundary } from '../components/route-error-boundary.js';
