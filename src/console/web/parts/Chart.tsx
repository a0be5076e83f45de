/**
 * Requests over time as bars (errors in their own colour at the foot of each bar), drawn as SVG by
 * hand: one small chart does not need a charting library. Empty hours or days show as gaps of zero,
 * and the same figures are in a table for screen readers and copying.
 */
import type { AnalyticsGroup } from "../Api.ts"
import { DataTable, num } from "./DataTable.tsx"
import { count } from "./Format.ts"

export type Bucket = "hour" | "day"

const STEP = { hour: 3_600_000, day: 86_400_000 }

const keyOf = (time: number, bucket: Bucket): string => {
  const iso = new Date(time).toISOString()
  return bucket === "day" ? iso.slice(0, 10) : `${iso.slice(0, 13)}:00:00Z`
}

const startOf = (group: string, bucket: Bucket): number =>
  new Date(bucket === "day" ? `${group}T00:00:00Z` : group).getTime()

/** Every bucket from the first to the last, zero where nothing happened. */
export const fillBuckets = (groups: ReadonlyArray<AnalyticsGroup>, bucket: Bucket): ReadonlyArray<{
  readonly label: string
  readonly requests: number
  readonly errors: number
}> => {
  const known = groups.filter((g) => g.group !== null)
  if (known.length === 0) return []
  const byKey = new Map(known.map((g) => [g.group as string, g]))
  const first = startOf(known[0]!.group as string, bucket)
  const last = startOf(known[known.length - 1]!.group as string, bucket)
  const out = []
  for (let t = first; t <= last && out.length < 2000; t += STEP[bucket]) {
    const key = keyOf(t, bucket)
    const g = byKey.get(key)
    out.push({ label: key, requests: g?.requests ?? 0, errors: g?.errors ?? 0 })
  }
  return out
}

const label = (key: string, bucket: Bucket) => (bucket === "day" ? key : `${key.slice(0, 10)} ${key.slice(11, 16)} UTC`)

export const Chart = (props: { readonly groups: ReadonlyArray<AnalyticsGroup>; readonly bucket: Bucket }) => {
  const points = fillBuckets(props.groups, props.bucket)
  if (points.length === 0) return <p class="muted">No requests in this range.</p>
  const width = 720
  const height = 200
  const pad = { left: 40, right: 8, top: 10, bottom: 28 }
  const max = Math.max(1, ...points.map((p) => p.requests))
  const slot = (width - pad.left - pad.right) / points.length
  const bar = Math.max(1, slot * 0.8)
  const y = (n: number) => pad.top + (height - pad.top - pad.bottom) * (1 - n / max)
  const total = points.reduce((n, p) => n + p.requests, 0)
  const errors = points.reduce((n, p) => n + p.errors, 0)
  const summary = `Requests per ${props.bucket} from ${label(points[0]!.label, props.bucket)} to ${
    label(points[points.length - 1]!.label, props.bucket)
  }: ${count(total)} requests, ${count(errors)} errors, at most ${count(max)} in one ${props.bucket}.`

  return (
    <figure class="chart">
      <svg viewBox={`0 0 ${width} ${height}`} role="img" aria-label={summary} preserveAspectRatio="none">
        <line class="axis" x1={pad.left} x2={width - pad.right} y1={y(0)} y2={y(0)} />
        <text class="tick" x={pad.left - 6} y={y(max) + 4} text-anchor="end">{count(max)}</text>
        <text class="tick" x={pad.left - 6} y={y(0)} text-anchor="end">0</text>
        {points.map((p, i) => {
          const x = pad.left + i * slot + (slot - bar) / 2
          return (
            <g key={p.label}>
              <title>
                {`${label(p.label, props.bucket)}: ${count(p.requests)} requests, ${count(p.errors)} errors`}
              </title>
              <rect class="bar" x={x} width={bar} y={y(p.requests)} height={y(0) - y(p.requests)} />
              <rect class="bar-error" x={x} width={bar} y={y(p.errors)} height={y(0) - y(p.errors)} />
            </g>
          )
        })}
        <text class="tick" x={pad.left} y={height - 8}>{label(points[0]!.label, props.bucket)}</text>
        {points.length > 1
          ? (
            <text class="tick" x={width - pad.right} y={height - 8} text-anchor="end">
              {label(points[points.length - 1]!.label, props.bucket)}
            </text>
          )
          : null}
      </svg>
      <figcaption>
        <span class="legend legend-ok">requests</span> <span class="legend legend-error">errors</span> per{" "}
        {props.bucket} (UTC)
      </figcaption>
      <details>
        <summary>As a table</summary>
        <DataTable
          label="Requests and errors per bucket"
          columns={[props.bucket === "day" ? "Day" : "Hour", num("Requests"), num("Errors")]}
        >
          {points.map((p) => (
            <tr key={p.label}>
              <td>{label(p.label, props.bucket)}</td>
              <td class="num">{count(p.requests)}</td>
              <td class="num">{count(p.errors)}</td>
            </tr>
          ))}
        </DataTable>
      </details>
    </figure>
  )
}
