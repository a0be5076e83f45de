/**
 * Spend per UTC day as bars, drawn as SVG by hand like the requests chart (`Chart.tsx`): every day of
 * the period has its slot, zero where nothing was spent, so a quiet week reads as one. The same figures
 * are in a table, for screen readers and copying. Bar heights are the only arithmetic on dollars here,
 * and only for drawing.
 */
import { DataTable, num } from "./DataTable.tsx"
import { count } from "./Format.ts"
import { usd } from "./Money.ts"
import { UsdCell } from "./UsdFigure.tsx"

export interface SpendDay {
  /** `YYYY-MM-DD`, UTC. */
  readonly day: string
  readonly micros: number
  readonly requests: number
  readonly unpriced: number
}

const WIDTH = 720
const HEIGHT = 200
const PAD = { left: 64, right: 8, top: 10, bottom: 28 }

export const SpendChart = (props: { readonly days: ReadonlyArray<SpendDay> }) => {
  const days = props.days
  if (days.length === 0) return null
  const max = Math.max(0, ...days.map((d) => d.micros))
  const busiest = days.find((d) => d.micros === max)
  const slot = (WIDTH - PAD.left - PAD.right) / days.length
  const bar = Math.max(1, slot * 0.8)
  const y = (micros: number) => PAD.top + (HEIGHT - PAD.top - PAD.bottom) * (1 - (max === 0 ? 0 : micros / max))
  const first = days[0]!.day
  const last = days[days.length - 1]!.day
  const summary = max === 0
    ? `Spend per UTC day from ${first} to ${last}: nothing priced was spent.`
    : `Spend per UTC day from ${first} to ${last}: at most ${usd(max)} in one day, on ${busiest?.day ?? first}.`

  return (
    <figure class="chart">
      <svg viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-label={summary} preserveAspectRatio="none">
        <line class="axis" x1={PAD.left} x2={WIDTH - PAD.right} y1={y(0)} y2={y(0)} />
        <text class="tick" x={PAD.left - 6} y={y(max) + 4} text-anchor="end">{usd(max)}</text>
        <text class="tick" x={PAD.left - 6} y={y(0)} text-anchor="end">$0</text>
        {days.map((d, i) => (
          <g key={d.day}>
            <title>{`${d.day}: ${usd(d.micros)}, ${count(d.requests)} requests`}</title>
            <rect
              class="bar"
              x={PAD.left + i * slot + (slot - bar) / 2}
              width={bar}
              y={y(d.micros)}
              height={y(0) - y(d.micros)}
            />
          </g>
        ))}
        <text class="tick" x={PAD.left} y={HEIGHT - 8}>{first}</text>
        {days.length > 1
          ? <text class="tick" x={WIDTH - PAD.right} y={HEIGHT - 8} text-anchor="end">{last}</text>
          : null}
      </svg>
      <figcaption>
        <span class="legend legend-ok">spend</span> per day (UTC); requests of models without a price add nothing
      </figcaption>
      <details>
        <summary>As a table</summary>
        <DataTable label="Spend per day" columns={["Day (UTC)", num("Cost"), num("Requests"), num("Unpriced")]}>
          {days.map((d) => (
            <tr key={d.day}>
              <td>{d.day}</td>
              <UsdCell micros={d.micros} unpriced={d.unpriced} />
              <td class="num">{count(d.requests)}</td>
              <td class="num">{count(d.unpriced)}</td>
            </tr>
          ))}
        </DataTable>
      </details>
    </figure>
  )
}
