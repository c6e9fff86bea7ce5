import type { ReactNode } from 'react';
import { EmptyState } from './empty-state.js';

/**
 * A header cell, named by its text. `label` replaces the text where the header carries markup (a "(UTC)" note),
 * `hidden` keeps it for screen readers only (an actions column), `className` aligns it (numbers).
 */
export type Column = string | { name: string; label?: ReactNode; hidden?: boolean; className?: string };

interface Props<Row> {
  rows: readonly Row[];
  columns: readonly Column[];
  /** Shown instead of the table when there are no rows. */
  empty: ReactNode;
  /** `key-table` is the denser style of the keys and deliveries tables. */
  variant?: 'data-table' | 'key-table';
  /** One `<tr>` per row, with its own key. */
  children: (row: Row) => ReactNode;
  /**
   * Names the table for a wide one that usually scrolls sideways (the audit log): its scrolling box then takes the
   * keyboard focus, so it can be scrolled without a mouse, and is announced by this name.
   */
  scrollLabel?: string;
}

/** A card's table: scrolls sideways on its own when too wide, and turns into stacked rows on phones (CSS). */
export function DataTable<Row>({ rows, columns, empty, variant = 'data-table', children, scrollLabel }: Props<Row>) {
  if (rows.length === 0) return <EmptyState>{empty}</EmptyState>;
  const scrolling = scrollLabel ? { tabIndex: 0, role: 'region', 'aria-label': scrollLabel } : {};
  return (
    <div className="table-wrap" {...scrolling}>
      <table className={variant}>
        <thead>
          <tr>
            {columns.map((column) => {
              const { name, label, hidden, className } = typeof column === 'string' ? { name: column } : column;
              return (
                <th key={name} scope="col" className={className}>
                  {hidden ? <span className="visually-hidden">{name}</span> : (label ?? name)}
                </th>
              );
            })}
          </tr>
        </thead>
        <tbody>{rows.map(children)}</tbody>
      </table>
    </div>
  );
}
