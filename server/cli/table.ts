type Cell = string | number | boolean | null | undefined;

/** Rows as aligned columns under a header; an empty list says so instead of printing a bare header. */
export function table(columns: readonly string[], rows: ReadonlyArray<readonly Cell[]>, empty = '(none)'): string {
  if (rows.length === 0) return empty;
  const text = rows.map((row) => row.map((cell) => (cell === null || cell === undefined ? '—' : String(cell))));
  const widths = columns.map((column, i) => Math.max(column.length, ...text.map((row) => (row[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, i) => cell.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd();
  return [line(columns), line(widths.map((width) => '-'.repeat(width))), ...text.map(line)].join('\n');
}

/** Label–value lines, labels aligned. */
export function fields(pairs: ReadonlyArray<readonly [string, Cell]>): string {
  const width = Math.max(...pairs.map(([label]) => label.length));
  return pairs.map(([label, value]) => `${`${label}:`.padEnd(width + 2)}${value ?? '—'}`).join('\n');
}

export const dollars = (cents: number) => `${cents < 0 ? '-' : ''}$${(Math.abs(cents) / 100).toFixed(2)}`;
