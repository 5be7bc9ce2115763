/** Credits per day as an SVG bar chart, drawn on the server; the same figures follow as a table for screen readers. */
export function CreditsChart({ days }: { days: readonly { day: string; credits: number }[] }) {
  const width = 620;
  const height = 160;
  const axis = 20;
  const top = Math.max(1, ...days.map((day) => day.credits));
  const slot = (width - axis) / Math.max(1, days.length);
  return (
    <figure class="chart">
      <svg viewBox={`0 0 ${width} ${height + 18}`} role="img" aria-labelledby="chart-title">
        <title id="chart-title">Credits charged per day this month</title>
        <text x="0" y="10" class="axis">
          {top}
        </text>
        <line x1={axis} y1={height} x2={width} y2={height} class="baseline" />
        {days.map((day, index) => {
          const barHeight = Math.round((day.credits / top) * (height - 16));
          const x = axis + index * slot;
          return (
            <g key={day.day}>
              <rect
                x={x + 1}
                y={height - barHeight}
                width={Math.max(1, slot - 2)}
                height={barHeight}
                class="bar"
              >
                <title>{`${day.day}: ${day.credits} credits`}</title>
              </rect>
              {(index === 0 || (index + 1) % 5 === 0) && (
                <text x={x + slot / 2} y={height + 14} class="axis" text-anchor="middle">
                  {Number(day.day.slice(8, 10))}
                </text>
              )}
            </g>
          );
        })}
      </svg>
      <figcaption>Credits charged per day this month (UTC days).</figcaption>
      <div class="visually-hidden">
        <table>
          <caption>Credits charged per day</caption>
          <thead>
            <tr>
              <th scope="col">Day</th>
              <th scope="col">Credits</th>
            </tr>
          </thead>
          <tbody>
            {days.map((day) => (
              <tr key={day.day}>
                <td>{day.day}</td>
                <td>{day.credits}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </figure>
  );
}
