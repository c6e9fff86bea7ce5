import { DailyBarChart } from './daily-bar-chart.js';

/** One chart of a report's daily rows: its title, its unit and the figure it draws from each day. */
export interface DailySeries<Day> {
  title: string;
  unit: string;
  value: (day: Day) => number;
}

/** A card of daily bar charts over the same days (usage, ad report, earnings). */
export function DailyCharts<Day extends { date: string }>({
  title,
  days,
  series,
}: {
  title: string;
  days: Day[];
  series: DailySeries<Day>[];
}) {
  return (
    <section className="card" aria-labelledby="daily-title">
      <h2 id="daily-title">{title}</h2>
      <div className="chart-grid">
        {series.map((one) => (
          <DailyBarChart
            key={one.title}
            title={one.title}
            unit={one.unit}
            points={days.map((day) => ({ date: day.date, value: one.value(day) }))}
          />
        ))}
      </div>
    </section>
  );
}
