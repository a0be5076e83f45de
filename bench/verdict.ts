/**
 * The guard's judgement (`guard.ts`): per cell, the median over rounds of each round's comparison of
 * the two builds measured back to back, RPS as a ratio and p50 as a difference, against the tolerances.
 * Pairing the builds round by round cancels what drifts between rounds (the machine's other work);
 * the median keeps one odd round from deciding.
 */
import { type LoadRun, summarize } from "./load.ts"
import type { Figures, Mode } from "./report.ts"

export interface CellSpec {
  readonly mode: Mode
  readonly concurrency: number
}

export interface Tolerances {
  /** The largest share of the baseline's RPS the current build may lose (0.15: 15 %). */
  readonly rpsTolerance: number
  /** The most the current build's p50 at c=1 may exceed the baseline's, in ms, on a fast machine. */
  readonly p50ToleranceMs: number
  /**
   * On a slower machine, the most as a share of the baseline's own p50 in the cell (0.2: 20 %), when
   * that is more than `p50ToleranceMs`. 0.05 ms was set where the baseline answered in about 0.24 ms
   * at c=1; a machine three to five times slower (or sharing its cores with a neighbour) stretches
   * every latency and its noise alike, and an absolute 0.05 ms there is inside the noise of one build
   * against itself.
   */
  readonly p50ToleranceShare: number
}

/** One window's figures, from its load run. */
export const figuresOf = (run: LoadRun): Figures => {
  const summary = summarize([run])
  return { rps: summary.rps, p50Ms: summary.latencyP50Ms }
}

export interface Round {
  readonly current: Figures
  readonly baseline: Figures
}

export interface CellVerdict {
  readonly cell: string
  readonly rps: { readonly current: number; readonly baseline: number; readonly ratio: number }
  readonly p50Ms: { readonly current: number; readonly baseline: number; readonly difference: number }
  readonly failures: ReadonlyArray<string>
}

export const cellName = (cell: CellSpec): string =>
  `${cell.mode === "stream" ? "streamed" : "whole"} c=${cell.concurrency}`

export const median = (values: ReadonlyArray<number>): number => {
  if (values.length === 0) return Number.NaN
  const sorted = [...values].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

/**
 * One cell over its rounds. RPS is judged in every cell; p50 only at c=1, where it is the time one
 * request takes: at c=16 it is the queue's length over the rate, so it moves with the RPS judged already.
 */
export const judge = (cell: CellSpec, rounds: ReadonlyArray<Round>, tolerances: Tolerances): CellVerdict => {
  if (rounds.length === 0) throw new Error(`${cellName(cell)}: no rounds to judge`)
  const ratio = median(rounds.map((r) => r.current.rps / r.baseline.rps))
  const difference = median(rounds.map((r) => r.current.p50Ms - r.baseline.p50Ms))
  const baselineP50 = median(rounds.map((r) => r.baseline.p50Ms))
  const p50Tolerance = Math.max(tolerances.p50ToleranceMs, tolerances.p50ToleranceShare * baselineP50)
  const failures: Array<string> = []
  if (!(ratio >= 1 - tolerances.rpsTolerance)) {
    failures.push(
      `${cellName(cell)}: RPS ${((1 - ratio) * 100).toFixed(1)} % below the baseline's (at most ${
        (tolerances.rpsTolerance * 100).toFixed(0)
      } %)`
    )
  }
  if (cell.concurrency === 1 && !(difference <= p50Tolerance)) {
    const scaled = p50Tolerance > tolerances.p50ToleranceMs
      ? `${p50Tolerance.toFixed(3)} ms, ${(tolerances.p50ToleranceShare * 100).toFixed(0)} % of its ${
        baselineP50.toFixed(3)
      }`
      : `${tolerances.p50ToleranceMs}`
    failures.push(`${cellName(cell)}: p50 ${difference.toFixed(3)} ms above the baseline's (at most ${scaled} ms)`)
  }
  return {
    cell: cellName(cell),
    rps: {
      current: median(rounds.map((r) => r.current.rps)),
      baseline: median(rounds.map((r) => r.baseline.rps)),
      ratio
    },
    p50Ms: {
      current: median(rounds.map((r) => r.current.p50Ms)),
      baseline: baselineP50,
      difference
    },
    failures
  }
}

/**
 * The cells that failed in every measurement, with each measurement's failures for them. A build that
 * is slower is slower in the same cell each time it is measured; a window that a neighbour on the
 * machine slowed down picks a cell at random.
 */
export const confirmedFailures = (attempts: ReadonlyArray<ReadonlyArray<CellVerdict>>): ReadonlyArray<string> => {
  if (attempts.length === 0) return []
  const failing = (verdicts: ReadonlyArray<CellVerdict>) =>
    new Set(verdicts.filter((v) => v.failures.length > 0).map((v) => v.cell))
  const sets = attempts.map(failing)
  const confirmed = [...sets[0]!].filter((cell) => sets.every((set) => set.has(cell)))
  return attempts.flatMap((verdicts) => verdicts.filter((v) => confirmed.includes(v.cell)).flatMap((v) => v.failures))
}
