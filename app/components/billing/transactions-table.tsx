import { formatTimestamp } from '../../utils/format.js';
import { CursorPager } from '../cursor-pager.js';
import { DataTable } from '../data-table.js';

export interface TransactionRow {
  id: string;
  delta: number;
  reason: 'signup_bonus' | 'purchase' | 'auto_topup' | 'stage' | 'enhance' | 'refund' | 'adjustment';
  balance_after: number;
  reference: string | null;
  created_at: string;
}

const REASON_TEXT: Record<TransactionRow['reason'], string> = {
  signup_bonus: 'Signup bonus',
  purchase: 'Purchase',
  auto_topup: 'Auto top-up',
  stage: 'Staging',
  enhance: 'Enhancement',
  refund: 'Refund',
  adjustment: 'Adjustment by Roomstage',
};

interface Props {
  transactions: TransactionRow[];
  hasMore: boolean;
  /** The page this table sits on: paging links keep its path and change only `starting_after`. */
  basePath: string;
  /** Whether this is a later page (then a link back to the newest is shown). */
  paged: boolean;
}

/** One page of the credit ledger, newest first, with links to older pages. Reusable by any billing page. */
export function TransactionsTable({ transactions, hasMore, basePath, paged }: Props) {
  return (
    <>
      <DataTable
        rows={transactions}
        columns={[
          {
            name: 'Date',
            label: (
              <>
                Date <span className="data-table__note">(UTC)</span>
              </>
            ),
          },
          'What',
          { name: 'Credits', className: 'data-table__number' },
          { name: 'Balance after', className: 'data-table__number' },
        ]}
        empty={paged ? 'No older transactions.' : 'No transactions yet. Your first API key brings 10 free credits.'}
      >
        {(transaction) => (
          <tr key={transaction.id}>
            <td data-label="Date (UTC)">
              <time dateTime={transaction.created_at}>{formatTimestamp(transaction.created_at)}</time>
            </td>
            <td data-label="What">
              {REASON_TEXT[transaction.reason]}
              {transaction.reference ? <span className="data-table__reference">{transaction.reference}</span> : null}
            </td>
            <td
              data-label="Credits"
              className={`data-table__number ${transaction.delta < 0 ? 'is-negative' : 'is-positive'}`}
            >
              {transaction.delta > 0 ? `+${transaction.delta}` : `−${Math.abs(transaction.delta)}`}
            </td>
            <td data-label="Balance after" className="data-table__number">
              {transaction.balance_after.toLocaleString('en-GB')}
            </td>
          </tr>
        )}
      </DataTable>
      <CursorPager
        label="Transaction pages"
        basePath={basePath}
        oldestId={transactions.at(-1)?.id}
        hasMore={hasMore}
        paged={paged}
      />
    </>
  );
}
