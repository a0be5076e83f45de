/**
 * `npm run bench`'s paired figures: two targets measured in the same rounds, compared round by round
 * (RPS as a ratio, p50 as a difference) and the median over the rounds taken, as the guard judges
 * (`verdict.ts`). A cell's own figures pool every sample of every round, so one slow spell of the
 * machine that falls on one target's windows moves its p50 by more than two builds differ (rounds of
 * one target at c=1 spread 0.25-0.40 ms here); the median of the rounds' comparisons does not.
 */
import { type Figures, fmt, type Mode, textTable } from "./report.ts"
import { cellName, median } from "./verdict.ts"

/**
 * Which targets are compared, when a run measured both: the gateway against the baseline, what the
 * log and compression at `safe` (on the bench's requests, which have nothing to compress) cost, against
 * its twin, the same build in a second process: how far apart two identical gateways land, and against
 * the bare pass-through: its share of the floor's RPS and the p50 it adds.
 */
export const COMPARISONS: ReadonlyArray<{ readonly current: string; readonly reference: string }> = [
  { current: "gateway", reference: "baseline" },
  { current: "gateway", reference: "gateway-log-off" },
  { current: "gateway", reference: "gateway-compression-off" },
  { current: "gateway", reference: "gateway-twin" },
  { current: "gateway", reference: "passthrough" }
]

export interface PairedFigure {
  readonly current: string
  readonly reference: string
  readonly mode: Mode
  readonly concurrency: number
  /** Rounds in which both were measured. */
  readonly rounds: number
  /** Median over rounds of current RPS / reference RPS. */
  readonly rpsRatio: number
  /** Median over rounds of current p50 - reference p50, in ms. */
  readonly p50DifferenceMs: number
}

/**
 * One cell's comparison of two targets from their rounds, paired by index (round i of each was measured
 * in the same round of the run); `undefined` when they share no round.
 */
export const pairedFigure = (
  current: string,
  reference: string,
  mode: Mode,
  concurrency: number,
  currentRounds: ReadonlyArray<Figures>,
  referenceRounds: ReadonlyArray<Figures>
): PairedFigure | undefined => pooledFigure(current, reference, mode, concurrency, [[currentRounds, referenceRounds]])

/**
 * One cell's comparison over several runs: each run's rounds paired by index within that run, and the
 * median taken over every run's rounds together. Eight rounds of one run on a noisy machine leave its
 * median several points from the truth; forty from five runs, far fewer (`pool.ts`).
 */
export const pooledFigure = (
  current: string,
  reference: string,
  mode: Mode,
  concurrency: number,
  runs: ReadonlyArray<readonly [ReadonlyArray<Figures>, ReadonlyArray<Figures>]>
): PairedFigure | undefined => {
  const ratios: Array<number> = []
  const differences: Array<number> = []
  let rounds = 0
  for (const [currentRounds, referenceRounds] of runs) {
    const shared = Math.min(currentRounds.length, referenceRounds.length)
    rounds += shared
    for (let i = 0; i < shared; i++) {
      const c = currentRounds[i]!
      const r = referenceRounds[i]!
      // a round in which the reference answered nothing has no ratio; its p50 difference still counts
      if (r.rps > 0) ratios.push(c.rps / r.rps)
      differences.push(c.p50Ms - r.p50Ms)
    }
  }
  if (rounds === 0) return undefined
  return {
    current,
    reference,
    mode,
    concurrency,
    rounds,
    rpsRatio: median(ratios),
    p50DifferenceMs: median(differences)
  }
}

const HEADERS = ["current", "reference", "cell", "rounds", "RPS ratio", "p50 difference ms"] as const

const rowOf = (figure: PairedFigure): Array<string> => [
  figure.current,
  figure.reference,
  cellName(figure),
  String(figure.rounds),
  fmt(figure.rpsRatio, 3),
  `${figure.p50DifferenceMs >= 0 ? "+" : ""}${fmt(figure.p50DifferenceMs, 3)}`
]

export const pairedText = (figures: ReadonlyArray<PairedFigure>): string => textTable(HEADERS, figures.map(rowOf), 3)
