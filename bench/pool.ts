/**
 * `node bench/pool.ts <results.json> [<results.json> ...]`: the paired figures of several runs of
 * `npm run bench` taken together. Each run's rounds are compared within that run, as `paired.ts` does,
 * and the median is taken over every run's rounds at once. One run's eight rounds on a noisy machine
 * spread by a quarter either way, so its median of them lands several points from where the builds
 * truly differ, and a figure near a target passes in one run and fails in the next; forty rounds from
 * five runs settle it. Keep each run's `bench/results/latest.json` under a name of its own, then give
 * them all here.
 */
import { readFileSync } from "node:fs"
import { pathToFileURL } from "node:url"
import { COMPARISONS, type PairedFigure, pairedText, pooledFigure } from "./paired.ts"
import type { Cell, Figures, Mode } from "./report.ts"

/** What a run's `latest.json` keeps of a cell that pooling reads (its pooled `result` is not). */
type ResultCell = Pick<Cell, "target" | "mode" | "concurrency" | "rounds">

const isFigures = (value: unknown): value is Figures =>
  typeof value === "object" && value !== null && typeof (value as Figures).rps === "number" &&
  typeof (value as Figures).p50Ms === "number"

const isCell = (value: unknown): value is ResultCell => {
  if (typeof value !== "object" || value === null) return false
  const cell = value as ResultCell
  return typeof cell.target === "string" && (cell.mode === "non-stream" || cell.mode === "stream") &&
    typeof cell.concurrency === "number" && Array.isArray(cell.rounds) && cell.rounds.every(isFigures)
}

/** A run's cells with their rounds; throws naming `source` when the document is not a bench run's. */
export const cellsOfRun = (source: string, document: unknown): ReadonlyArray<ResultCell> => {
  const cells = typeof document === "object" && document !== null
    ? (document as { readonly cells?: unknown }).cells
    : undefined
  if (!Array.isArray(cells)) throw new Error(`${source}: not a bench result (no "cells" list)`)
  const bad = cells.findIndex((cell) => !isCell(cell))
  if (bad !== -1) throw new Error(`${source}: cell ${bad} has no target, mode, concurrency and rounds of rps and p50Ms`)
  return cells as ReadonlyArray<ResultCell>
}

/** Every comparison of `COMPARISONS` that some run measured, pooled over the runs that measured it. */
export const pooledFigures = (runs: ReadonlyArray<ReadonlyArray<ResultCell>>): ReadonlyArray<PairedFigure> => {
  const cells = new Map<string, readonly [Mode, number]>()
  for (const run of runs) {
    for (const cell of run) cells.set(`${cell.mode} ${cell.concurrency}`, [cell.mode, cell.concurrency])
  }
  const figures: Array<PairedFigure> = []
  for (const [mode, concurrency] of cells.values()) {
    const roundsOf = (run: ReadonlyArray<ResultCell>, target: string) =>
      run.find((cell) => cell.target === target && cell.mode === mode && cell.concurrency === concurrency)?.rounds
    for (const { current, reference } of COMPARISONS) {
      const pairs = runs.flatMap((run) => {
        const c = roundsOf(run, current)
        const r = roundsOf(run, reference)
        return c === undefined || r === undefined ? [] : [[c, r] as const]
      })
      const figure = pooledFigure(current, reference, mode, concurrency, pairs)
      if (figure !== undefined) figures.push(figure)
    }
  }
  return figures
}

const main = () => {
  const files = process.argv.slice(2)
  if (files.length === 0) {
    console.error("usage: node bench/pool.ts <results.json> [<results.json> ...] (copies of bench/results/latest.json)")
    process.exit(2)
  }
  const runs = files.map((file) => {
    let text: string
    try {
      text = readFileSync(file, "utf8")
    } catch (cause) {
      throw new Error(`${file}: cannot be read (${(cause as Error).message})`, { cause })
    }
    let document: unknown
    try {
      document = JSON.parse(text)
    } catch (cause) {
      throw new Error(`${file}: not JSON`, { cause })
    }
    return cellsOfRun(file, document)
  })
  const figures = pooledFigures(runs)
  if (figures.length === 0) {
    console.error("no comparison was measured in these runs (they need the gateway and one of its references)")
    process.exit(1)
  }
  console.log(`paired over the rounds of ${files.length} run(s) (median of every round's comparison):`)
  console.log(pairedText(figures))
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  try {
    main()
  } catch (error) {
    console.error((error as Error).message)
    process.exit(1)
  }
}
