/**
 * Bench reporting: the result table (plain text for the terminal, markdown for bench/results/latest.md)
 * and the derived figures the project targets, each judged PASS/FAIL against its threshold for every
 * gateway variant relative to the bare pass-through.
 */
import type { LoadResult } from "./load.ts"

export type Mode = "non-stream" | "stream"

/** One build's figures in one window. */
export interface Figures {
  readonly rps: number
  readonly p50Ms: number
}

export interface Cell {
  readonly target: string
  readonly mode: Mode
  readonly concurrency: number
  /** Every round's samples pooled. */
  readonly result: LoadResult
  /** Each round's own figures, in the run's order: what the paired figures compare, kept in latest.json. */
  readonly rounds: ReadonlyArray<Figures>
}

export type Verdict = "PASS" | "FAIL" | "SKIP"

export interface Derived {
  readonly variant: string
  readonly name: string
  readonly value: number | null
  readonly unit: string
  readonly threshold: string
  readonly verdict: Verdict
  readonly note: string
}

export interface GatewayReport {
  readonly name: string
  readonly env: Readonly<Record<string, string>>
  readonly status: "ok" | "unavailable" | "failed"
  readonly error: string | null
  /** VmHWM at the end of the run: the figure judged. */
  readonly peakRssMiB: number | null
  /** VmHWM once ready and provisioned, before any chat load (start-up's share of the peak). */
  readonly readyPeakRssMiB: number | null
  /** VmRSS at the end of the run. */
  readonly endRssMiB: number | null
}

/** One line on a gateway's memory: peak, start-up's share, resident at the end. */
export const memoryLine = (g: GatewayReport): string =>
  `${g.name} peak ${fmt(g.peakRssMiB, 1)} MiB (${fmt(g.readyPeakRssMiB, 1)} MiB already at ready), ` +
  `${fmt(g.endRssMiB, 1)} MiB resident at the end`

export const fmt = (value: number | null | undefined, digits: number): string =>
  value === null || value === undefined || !Number.isFinite(value) ? "-" : value.toFixed(digits)

const HEADERS = ["target", "mode", "conc", "RPS", "p50 ms", "p99 ms", "TTFB p50 ms", "errors"] as const

const cellRow = (cell: Cell): Array<string> => [
  cell.target,
  cell.mode,
  String(cell.concurrency),
  fmt(cell.result.rps, 1),
  fmt(cell.result.latencyP50Ms, 3),
  fmt(cell.result.latencyP99Ms, 3),
  fmt(cell.result.ttfbP50Ms, 3),
  String(cell.result.errors)
]

/** Columns padded to width; text columns left-aligned, numbers right-aligned. */
export const textTable = (
  headers: ReadonlyArray<string>,
  rows: ReadonlyArray<ReadonlyArray<string>>,
  leftCols = 2
): string => {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)))
  const line = (cols: ReadonlyArray<string>): string =>
    cols.map((c, i) => (i < leftCols ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join("  ").trimEnd()
  return [line(headers), widths.map((w) => "-".repeat(w)).join("  "), ...rows.map(line)].join("\n")
}

const mdTable = (headers: ReadonlyArray<string>, rows: ReadonlyArray<ReadonlyArray<string>>, leftCols = 2): string =>
  [
    `| ${headers.join(" | ")} |`,
    `|${headers.map((_, i) => (i < leftCols ? " --- " : " ---: ")).join("|")}|`,
    ...rows.map((r) => `| ${r.map((c) => c.replaceAll("|", "\\|")).join(" | ")} |`)
  ].join("\n")

export const cellsText = (cells: ReadonlyArray<Cell>): string => textTable(HEADERS, cells.map(cellRow))

export const firstErrors = (cells: ReadonlyArray<Cell>): Array<string> =>
  cells.filter((c) => c.result.firstError !== null).map((c) =>
    `${c.target} ${c.mode} c=${c.concurrency}: ${c.result.errors} error(s), first: ${c.result.firstError ?? ""}`
  )

const find = (cells: ReadonlyArray<Cell>, target: string, mode: Mode, concurrency: number): Cell | undefined =>
  cells.find((c) => c.target === target && c.mode === mode && c.concurrency === concurrency)

const judge = (
  variant: string,
  name: string,
  unit: string,
  threshold: string,
  inputs: ReadonlyArray<Cell | undefined>,
  compute: (cells: ReadonlyArray<Cell>) => number,
  pass: (value: number) => boolean
): Derived => {
  const present = inputs.filter((c): c is Cell => c !== undefined && c.result.requests > 0)
  if (present.length < inputs.length) {
    return { variant, name, value: null, unit, threshold, verdict: "SKIP", note: "no measurement" }
  }
  const value = Math.round(compute(present) * 1000) / 1000
  const withErrors = present.filter((c) => c.result.errors > 0)
  if (withErrors.length > 0) {
    const where = withErrors.map((c) => `${c.target} ${c.mode} c=${c.concurrency}`).join(", ")
    return { variant, name, value, unit, threshold, verdict: "FAIL", note: `errors in ${where}` }
  }
  return { variant, name, value, unit, threshold, verdict: pass(value) ? "PASS" : "FAIL", note: "" }
}

/**
 * What the request log costs: throughput lost at c=16 with the log on, against the same gateway with
 * `GATEWAY_REQUEST_LOG=off`, measured in the same rounds. The target is under 10%.
 */
export const deriveLoggingCost = (cells: ReadonlyArray<Cell>, on: string, off: string): Array<Derived> =>
  (["non-stream", "stream"] as const).map((mode) =>
    judge(
      on,
      `logging cost, RPS c=16 ${mode}: (off - on) / off`,
      "%",
      "< 10%",
      [find(cells, on, mode, 16), find(cells, off, mode, 16)],
      ([g, o]) => (100 * ((o?.result.rps ?? 0) - (g?.result.rps ?? 0))) / (o?.result.rps ?? 1),
      (x) => x < 10
    )
  )

/** The project's targets for one gateway variant, against the pass-through. */
export const deriveTargets = (
  cells: ReadonlyArray<Cell>,
  gateway: GatewayReport,
  passthrough = "passthrough"
): Array<Derived> => {
  const v = gateway.name
  const at = (target: string, mode: Mode, c: number): Cell | undefined => find(cells, target, mode, c)
  const rpsRatio = (mode: Mode): Derived =>
    judge(
      v,
      `RPS c=16 ${mode}, gateway / pass-through`,
      "%",
      ">= 50%",
      [at(v, mode, 16), at(passthrough, mode, 16)],
      ([g, p]) => (100 * (g?.result.rps ?? 0)) / (p?.result.rps ?? 1),
      (x) => x >= 50
    )
  const rss: Derived = gateway.peakRssMiB === null
    ? {
      variant: v,
      name: "peak RSS (VmHWM)",
      value: null,
      unit: "MiB",
      threshold: "<= 120 MiB",
      verdict: "SKIP",
      note: "not measured"
    }
    : {
      variant: v,
      name: "peak RSS (VmHWM)",
      value: gateway.peakRssMiB,
      unit: "MiB",
      threshold: "<= 120 MiB",
      verdict: gateway.peakRssMiB <= 120 ? "PASS" : "FAIL",
      note: ""
    }
  return [
    rpsRatio("non-stream"),
    rpsRatio("stream"),
    judge(
      v,
      "added p50 latency c=1 non-stream, gateway - pass-through",
      "ms",
      "<= 0.3 ms",
      [at(v, "non-stream", 1), at(passthrough, "non-stream", 1)],
      ([g, p]) => (g?.result.latencyP50Ms ?? 0) - (p?.result.latencyP50Ms ?? 0),
      (x) => x <= 0.3
    ),
    judge(
      v,
      "stream TTFB overhead p50 c=1, gateway - pass-through",
      "ms",
      "<= 0.5 ms",
      [at(v, "stream", 1), at(passthrough, "stream", 1)],
      ([g, p]) => (g?.result.ttfbP50Ms ?? 0) - (p?.result.ttfbP50Ms ?? 0),
      (x) => x <= 0.5
    ),
    rss
  ]
}

const DERIVED_HEADERS = ["variant", "figure", "value", "target", "verdict", "note"] as const

const derivedRow = (
  d: Derived
): Array<string> => [
  d.variant,
  d.name,
  d.value === null ? "-" : `${fmt(d.value, d.unit === "ms" ? 3 : 1)} ${d.unit}`,
  d.threshold,
  d.verdict,
  d.note
]

/** First line of a message, at most `max` characters. */
export const brief = (message: string, max = 160): string => {
  const line = message.split("\n")[0] ?? ""
  return line.length > max ? `${line.slice(0, max - 3)}...` : line
}

export const derivedText = (derived: ReadonlyArray<Derived>): string =>
  derived.length === 0 ? "(no gateway measured)" : textTable(DERIVED_HEADERS, derived.map(derivedRow), 2)

export interface Meta {
  readonly date: string
  readonly node: string
  readonly cpus: string
  readonly secondsPerCell: number
  readonly rounds: number
  readonly warmupSecondsPerRound: number
  /** Unrecorded load on each target per mode at c=16 before the first round. */
  readonly targetWarmupSeconds: number
  readonly maxRequestsPerCell: number
  readonly passthroughPeakRssMiB: number | null
}

export const markdown = (
  meta: Meta,
  cells: ReadonlyArray<Cell>,
  gateways: ReadonlyArray<GatewayReport>,
  derived: ReadonlyArray<Derived>,
  failures: ReadonlyArray<string>
): string => {
  const gatewayLines = gateways.flatMap((g) => {
    const env = Object.entries(g.env).map(([k, val]) => `${k}=${val}`).join(" ") || "(base env)"
    return [
      `- \`${g.name}\` ${env}: ${g.status}${g.error === null ? "" : ` — ${brief(g.error, 400)}`}`,
      ...(g.status === "unavailable" ? [] : [`  - memory: ${memoryLine(g)}`])
    ]
  })
  const errors = firstErrors(cells)
  return [
    "# svc-gateway bench",
    "",
    `${meta.date} · Node ${meta.node} · ${meta.cpus} · ${meta.secondsPerCell} s per cell in ${meta.rounds} alternating rounds,` +
    ` each after ${meta.warmupSecondsPerRound} s warm-up, each target first warmed ${meta.targetWarmupSeconds} s a mode` +
    ` (max ${meta.maxRequestsPerCell} requests per cell)`,
    "",
    mdTable(HEADERS, cells.map(cellRow)),
    "",
    "## Targets",
    "",
    derived.length === 0 ? "(no gateway measured)" : mdTable(DERIVED_HEADERS, derived.map(derivedRow)),
    "",
    "## Gateways",
    "",
    ...gatewayLines,
    `- pass-through peak RSS: ${fmt(meta.passthroughPeakRssMiB, 1)} MiB`,
    ...(errors.length === 0 ? [] : ["", "## Errors", "", ...errors.map((e) => `- ${e}`)]),
    ...(failures.length === 0 ? [] : ["", "## Failed steps", "", ...failures.map((f) => `- ${brief(f, 400)}`)]),
    ""
  ].join("\n")
}
