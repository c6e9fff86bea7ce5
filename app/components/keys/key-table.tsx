import { Form, Link } from '@remix-run/react';
import { formatTimestamp } from '../../utils/format.js';
import { Badge } from '../badge.js';
import { DataTable } from '../data-table.js';
import type { ApiKeyRow } from './types.js';

interface Props {
  keys: ApiKeyRow[];
  /** The key whose revocation is being submitted, to show progress. */
  revokingId: number | null;
}

function Timestamp({ iso, empty }: { iso: string | null; empty: string }) {
  return iso ? (
    <time dateTime={iso} title={iso}>
      {formatTimestamp(iso)}
    </time>
  ) : (
    <span className="muted">{empty}</span>
  );
}

/** Every key of the account, newest first; revoked keys stay listed, greyed out. */
export function KeyTable({ keys, revokingId }: Props) {
  return (
    <DataTable
      variant="key-table"
      rows={keys}
      columns={[
        'Name',
        'Mode',
        'Key',
        {
          name: 'Created',
          label: (
            <>
              Created <span className="key-table__tz">(UTC)</span>
            </>
          ),
        },
        {
          name: 'Last used',
          label: (
            <>
              Last used <span className="key-table__tz">(UTC)</span>
            </>
          ),
        },
        'Status',
        { name: 'Actions', hidden: true },
      ]}
      empty="No keys yet. Create your first key above: it comes with 10 free credits."
    >
      {(key) => {
        const revoked = key.status === 'revoked';
        return (
          <tr key={key.id} className={revoked ? 'is-revoked' : undefined}>
            <th scope="row" data-label="Name">
              {key.name}
            </th>
            <td data-label="Mode">
              <Badge tone={key.mode}>{key.mode}</Badge>
            </td>
            <td data-label="Key">
              <code className="key-prefix">{key.prefix}…</code>
            </td>
            <td data-label="Created (UTC)">
              <Timestamp iso={key.created_at} empty="" />
              {key.created_by?.email ? <span className="key-table__creator">by {key.created_by.email}</span> : null}
            </td>
            <td data-label="Last used (UTC)">
              <Timestamp iso={key.last_used_at} empty="never" />
            </td>
            <td data-label="Status">
              <Badge tone={key.status}>{key.status}</Badge>
              {revoked && key.revoked_at ? (
                <span className="key-table__revoked-at">
                  {' '}
                  on <Timestamp iso={key.revoked_at} empty="" />
                </span>
              ) : null}
            </td>
            <td className="key-table__actions">
              <Link to={`/keys/${key.id}/webhook`} className="button button--ghost button--small">
                Webhook<span className="visually-hidden"> of key “{key.name}”</span>
              </Link>
              {revoked ? null : <RevokeControl id={key.id} name={key.name} pending={revokingId === key.id} />}
            </td>
          </tr>
        );
      }}
    </DataTable>
  );
}

/** Two steps, no JavaScript needed: open the disclosure, then confirm. */
function RevokeControl({ id, name, pending }: { id: number; name: string; pending: boolean }) {
  return (
    <details className="revoke">
      <summary className="button button--danger-ghost button--small">
        Revoke<span className="visually-hidden"> key “{name}”</span>
      </summary>
      <div className="revoke__panel">
        <p>Apps that use “{name}” will stop working at once. This cannot be undone.</p>
        <Form method="post">
          <input type="hidden" name="intent" value="revoke" />
          <input type="hidden" name="id" value={id} />
          <button type="submit" className="button button--danger button--small" disabled={pending}>
            {pending ? 'Revoking…' : 'Confirm revoke'}
          </button>
        </Form>
      </div>
    </details>
  );
}
