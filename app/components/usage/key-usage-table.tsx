import { formatTimestamp } from '../../utils/format.js';
import { DataTable } from '../data-table.js';

export interface KeyUsageRow {
  key_id: number;
  name: string;
  prefix: string;
  credits_used: number;
  last_used_at: string | null;
}

/** Credits each API key spent in the report's range. */
export function KeyUsageTable({ keys }: { keys: KeyUsageRow[] }) {
  return (
    <DataTable
      rows={keys}
      columns={[
        'Key',
        { name: 'Credits used', className: 'data-table__number' },
        {
          name: 'Last used',
          label: (
            <>
              Last used <span className="data-table__note">(UTC)</span>
            </>
          ),
        },
      ]}
      empty="No API keys yet. Create one under Settings → API to start staging photos."
    >
      {(key) => (
        <tr key={key.key_id}>
          <th scope="row" data-label="Key">
            {key.name} <span className="muted nowrap">({key.prefix}…)</span>
          </th>
          <td data-label="Credits used" className="data-table__number">
            {key.credits_used.toLocaleString('en-GB')}
          </td>
          <td data-label="Last used (UTC)">
            {key.last_used_at ? (
              <time dateTime={key.last_used_at}>{formatTimestamp(key.last_used_at)}</time>
            ) : (
              <span className="muted">never</span>
            )}
          </td>
        </tr>
      )}
    </DataTable>
  );
}
