import type { ReactNode } from 'react';
import { auditActionLabel } from '../../utils/audit-actions.js';
import { formatTimestamp } from '../../utils/format.js';
import { DataTable } from '../data-table.js';

/** One entry as `security.auditLog` and the operators' account view give it. */
export interface AuditRow {
  id: string;
  action: string;
  actor: { type: 'user' | 'key' | 'operator'; id: string; label: string };
  ip: string | null;
  user_agent: string | null;
  target: string | null;
  details: Details;
  created_at: string;
}

type Details = Record<string, string | number | boolean | null | string[]>;

function DetailsList({ details }: { details: Details }) {
  const entries = Object.entries(details);
  if (entries.length === 0) return <>—</>;
  return (
    <ul className="audit-details">
      {entries.map(([name, value]) => (
        <li key={name}>
          {name.replace(/_/g, ' ')}:{' '}
          {value === null ? '—' : <code>{Array.isArray(value) ? value.join(', ') : String(value)}</code>}
        </li>
      ))}
    </ul>
  );
}

/** An account's audit log entries, newest first: the account's own Audit log page, and the operator console. */
export function AuditTable({ entries, empty }: { entries: readonly AuditRow[]; empty: ReactNode }) {
  return (
    <DataTable
      scrollLabel="Audit log entries"
      rows={entries}
      columns={[
        {
          name: 'Time',
          label: (
            <>
              Time <span className="data-table__note">(UTC)</span>
            </>
          ),
        },
        'Action',
        'Actor',
        'IP address',
        'Browser',
        'Target',
        'Details',
      ]}
      empty={empty}
    >
      {(entry) => (
        <tr key={entry.id}>
          <td data-label="Time (UTC)">
            <time dateTime={entry.created_at}>{formatTimestamp(entry.created_at)}</time>
          </td>
          <td data-label="Action">
            {auditActionLabel(entry.action)}
            <code className="data-table__reference nowrap">{entry.action}</code>
          </td>
          <td data-label="Actor">
            {entry.actor.label}
            <span className="cell-note">
              {entry.actor.type === 'key' ? 'API key' : entry.actor.type === 'operator' ? 'Roomstage operator' : 'User'}
            </span>
          </td>
          <td data-label="IP address">{entry.ip ?? '—'}</td>
          <td data-label="Browser" className="cell-user-agent">
            {entry.user_agent ?? '—'}
          </td>
          <td data-label="Target" className="cell-target">
            {entry.target ? <code className="data-table__reference">{entry.target}</code> : '—'}
          </td>
          <td data-label="Details" className="cell-details">
            <DetailsList details={entry.details} />
          </td>
        </tr>
      )}
    </DataTable>
  );
}
