/**
 * A daily series as bars, drawn as plain SVG on the server: no chart package (the dashboard must render without
 * client JavaScript, and a bar per day needs no more than this), it scales to its card's width through `viewBox`
 * and names its figures for screen readers in a caption and a visually hidden table.
 */
export interface DailyPoint {
  date: string;
  value: number;
}

interface Props {
  title: string;
  points: DailyPoint[];
  /** What one unit is, for the caption and the hidden table: "images", "credits". */
  unit: string;
}

const WIDTH = 600;
const HEIGHT = 160;
const AXIS = 22;
const TOP = 14;

/** The smallest "nice" ceiling (1, 2, 5 × 10ⁿ) at or above `max`, so the top gridline reads as a round number. */
function niceCeiling(max: number): number {
  if (max <= 0) return 1;
  const magnitude = 10 ** Math.floor(Math.log10(max));
  for (const step of [1, 2, 5, 10]) if (step * magnitude >= max) return step * magnitude;
  return 10 * magnitude;
}

export function DailyBarChart({ title, points, unit }: Props) {
  const total = points.reduce((sum, point) => sum + point.value, 0);
  const ceiling = niceCeiling(Math.max(0, ...points.map((point) => point.value)));
  const plotHeight = HEIGHT - AXIS - TOP;
  const slot = WIDTH / Math.max(1, points.length);
  const barWidth = Math.max(1, slot * 0.7);
  const first = points[0]?.date;
  const last = points.at(-1)?.date;
  const summary = `${title}: ${total.toLocaleString('en-GB')} ${unit} from ${first} to ${last}, at most ${Math.max(0, ...points.map((p) => p.value))} a day.`;
  return (
    <figure className="chart">
      <figcaption className="chart__caption">
        <span className="chart__title">{title}</span>
        <span className="chart__total">
          {total.toLocaleString('en-GB')} {unit}
        </span>
      </figcaption>
      <svg
        className="chart__svg"
        viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
        preserveAspectRatio="none"
        role="img"
        aria-label={summary}
        focusable="false"
      >
        <line className="chart__grid" x1={0} x2={WIDTH} y1={TOP} y2={TOP} />
        <line className="chart__axis" x1={0} x2={WIDTH} y1={TOP + plotHeight} y2={TOP + plotHeight} />
        {points.map((point, index) => {
          const height = (point.value / ceiling) * plotHeight;
          return (
            <rect
              key={point.date}
              className="chart__bar"
              x={index * slot + (slot - barWidth) / 2}
              y={TOP + plotHeight - height}
              width={barWidth}
              height={height}
            >
              <title>{`${point.date}: ${point.value} ${unit}`}</title>
            </rect>
          );
        })}
      </svg>
      <div className="chart__labels" aria-hidden="true">
        <span>{first}</span>
        <span>max {ceiling.toLocaleString('en-GB')}</span>
        <span>{last}</span>
      </div>
      <table className="visually-hidden">
        <caption>{title}, per day</caption>
        <thead>
          <tr>
            <th scope="col">Date</th>
            <th scope="col">{unit}</th>
          </tr>
        </thead>
        <tbody>
          {points.map((point) => (
            <tr key={point.date}>
              <th scope="row">{point.date}</th>
              <td>{point.value}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </figure>
  );
}
