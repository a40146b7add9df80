/** One bar: its bucket's label and value. */
export interface BarDatum {
  label: string;
  value: number;
}

const WIDTH = 600;
const HEIGHT = 160;
const AXIS = 18; // px under the bars for the labels

/**
 * A bar chart drawn as plain SVG (no script-injected styles, so it works under the strict CSP).
 * Screen readers get one sentence (total and peak) as the image's name; each bar has a
 * `<title>` with its bucket and value; the figures are also in the overview's table.
 */
export function BarChart({ title, data }: { title: string; data: readonly BarDatum[] }) {
  const max = Math.max(1, ...data.map((d) => d.value));
  const total = data.reduce((sum, d) => sum + d.value, 0);
  const peak = data.reduce<BarDatum | undefined>((best, d) => (!best || d.value > best.value ? d : best), undefined);
  const slot = WIDTH / Math.max(1, data.length);
  const barWidth = Math.max(1, slot * 0.7);
  const plotHeight = HEIGHT - AXIS;
  const summary = `${title}: ${total} in all${peak && peak.value > 0 ? `, at most ${peak.value} (${peak.label})` : ''}.`;
  const tickEvery = Math.max(1, Math.ceil(data.length / 6));
  return (
    <figure class="chart">
      <h3>
        {title} <span class="muted small">{total}</span>
      </h3>
      <svg viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-label={summary} preserveAspectRatio="none">
        <line class="axis" x1="0" y1={plotHeight} x2={WIDTH} y2={plotHeight} />
        {data.map((d, i) => {
          const h = (d.value / max) * (plotHeight - 4);
          return (
            <rect key={`b${i}`} class="bar" x={i * slot + (slot - barWidth) / 2} y={plotHeight - h} width={barWidth} height={h}>
              <title>{`${d.label}: ${d.value}`}</title>
            </rect>
          );
        })}
        {data.map((d, i) =>
          i % tickEvery === 0 ? (
            <text key={`t${i}`} x={i * slot + slot / 2} y={HEIGHT - 4} text-anchor="middle">
              {d.label}
            </text>
          ) : null,
        )}
        <text x="2" y="10">
          {max}
        </text>
      </svg>
    </figure>
  );
}
