import { dayToDate } from './money.js';

/**
 * Every UTC day from `fromDay` to `toDay` (days since 1970), in order, each with its row's figures or the empty
 * ones: the reports' daily series never skips a day without traffic.
 */
export function daySeries<Row extends { day: number | string }, Figures>(
  range: { fromDay: number; toDay: number },
  rows: Row[],
  figures: (row: Row | undefined) => Figures,
): Array<{ date: string } & Figures> {
  const byDay = new Map(rows.map((row) => [Number(row.day), row]));
  const series: Array<{ date: string } & Figures> = [];
  for (let day = range.fromDay; day <= range.toDay; day++)
    series.push({ date: dayToDate(day), ...figures(byDay.get(day)) });
  return series;
}
