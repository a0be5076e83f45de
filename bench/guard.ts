/**
 * `npm run bench:guard`: fails when this tree's gateway is slower than the baseline's.
 *
 * The baseline is the commit `bench/BASELINE` names (built once per commit by `baseline.ts`); this
 * tree's bundle is what `npm run build` wrote. Both run as `npm start` runs them, side by side, each with
 * its request log on (a PostgreSQL database of its own when the bench's server answers, else the embedded
 * store), behind the bench's fake upstream. Rounds alternate between them: in each round, for each cell
 * (c=1 and c=16, whole and streamed chat completions), a short warm-up and a measured window on one
 * build, then on the other, in an order that swaps every round. Per round and cell the two builds'
 * figures are compared (RPS as a ratio, p50 as a difference), and the median over rounds is judged:
 * - RPS: more than `GUARD_RPS_TOLERANCE` (15 %) below the baseline's, in any cell, fails;
 * - p50 at c=1: more than `GUARD_P50_TOLERANCE_MS` (0.05 ms) above the baseline's fails, or on a slow
 *   machine more than `GUARD_P50_TOLERANCE_SHARE` (20 %) of the baseline's own p50 when that is more
 *   (`verdict.ts` says why). At c=16 the p50 is the queue's length over the rate, so it moves with RPS,
 *   which is judged.
 * A process's speed depends a little on how its JIT happened to compile it (two processes of one build
 * differ by up to 8 % in CPU per request), and a neighbour on a shared machine slows some windows, so a
 * failing comparison is measured again with fresh processes, up to `GUARD_MEASUREMENTS` (3) times, and
 * the guard fails only when the same cell fails in every one. Two were once not enough: on a machine
 * whose rounds spread by a factor of two, it failed streamed c=16 twice running (0.762, then 0.843) for
 * a change that spends less CPU per request than the baseline (`bench/cpu.ts`: 213 against 218 µs
 * streamed). A build a quarter slower fails every measurement, so a third costs it only time; one at
 * the line (a 30 µs busy wait, 16 % there) failed twice and passed the third: a change that small can
 * pass alone, and the next that adds to it fails against the same baseline.
 *
 * Env: GUARD_BASELINE (a revision instead of bench/BASELINE's), GUARD_ROUNDS (7), GUARD_SECONDS (1.5 per
 * window), GUARD_WARMUP_SECONDS (0.3 per window), GUARD_RPS_TOLERANCE (0.15), GUARD_P50_TOLERANCE_MS
 * (0.05), GUARD_P50_TOLERANCE_SHARE (0.2), GUARD_MEASUREMENTS (3), GUARD_ENTRY (this tree's bundle,
 * dist/main.js), BENCH_DATABASE_URL as for the bench. Writes bench/results/guard.json.
 */
import { mkdirSync, writeFileSync } from "node:fs"
import { join, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import { baselineCommit, buildCommit } from "./baseline.ts"
import { benchStore } from "./database.ts"
import { type RunningGateway, startGateway } from "./gateway.ts"
import { type Loader, startLoader } from "./loader.ts"
import { startServerChild, stopAll } from "./proc.ts"
import { type Figures, textTable } from "./report.ts"
import { requestBody, sanityCheck, streamEnd, type Target } from "./sanity.ts"
import {
  cellName,
  type CellSpec,
  type CellVerdict,
  confirmedFailures,
  figuresOf,
  judge,
  type Round
} from "./verdict.ts"

const repoRoot = fileURLToPath(new URL("..", import.meta.url))
const resultsDir = join(repoRoot, "bench", "results")

const envNumber = (name: string, fallback: number): number => {
  const raw = process.env[name]
  const value = raw === undefined || raw === "" ? fallback : Number(raw)
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name}=${String(raw)} is not a positive number`)
  return value
}

const settings = {
  rounds: Math.round(envNumber("GUARD_ROUNDS", 7)),
  seconds: envNumber("GUARD_SECONDS", 1.5),
  warmupSeconds: envNumber("GUARD_WARMUP_SECONDS", 0.3),
  rpsTolerance: envNumber("GUARD_RPS_TOLERANCE", 0.15),
  p50ToleranceMs: envNumber("GUARD_P50_TOLERANCE_MS", 0.05),
  p50ToleranceShare: envNumber("GUARD_P50_TOLERANCE_SHARE", 0.2),
  measurements: Math.round(envNumber("GUARD_MEASUREMENTS", 3))
}

const CELLS: ReadonlyArray<CellSpec> = [
  { mode: "non-stream", concurrency: 1 },
  { mode: "stream", concurrency: 1 },
  { mode: "non-stream", concurrency: 16 },
  { mode: "stream", concurrency: 16 }
]

const targetOf = (gateway: RunningGateway): Target => ({
  name: gateway.variant.name,
  url: `${gateway.baseUrl}/v1/chat/completions`,
  headers: { authorization: `Bearer ${gateway.apiKey}` },
  model: "bench/fake-model"
})

/** One comparison: both builds started afresh, measured in alternating rounds, then stopped. */
const compare = async (
  loader: Loader,
  upstreamPort: number,
  store: Awaited<ReturnType<typeof benchStore>>,
  entries: { readonly current: string; readonly baseline: string },
  attempt: number
): Promise<ReadonlyArray<CellVerdict>> => {
  const gateways: Record<"current" | "baseline", RunningGateway | undefined> = {
    current: undefined,
    baseline: undefined
  }
  try {
    for (const side of ["current", "baseline"] as const) {
      const name = `guard-${side}-${attempt}`
      gateways[side] = await startGateway({
        repoRoot,
        resultsDir,
        upstreamPort,
        variant: { name, env: await store.envFor(name), entry: entries[side] }
      })
    }
    const sides = { current: targetOf(gateways.current!), baseline: targetOf(gateways.baseline!) }
    const window = (target: Target, cell: CellSpec, warmupSeconds: number, seconds: number) =>
      loader.run({
        url: target.url,
        headers: target.headers,
        body: requestBody(target.model, cell.mode),
        concurrency: cell.concurrency,
        warmupSeconds,
        seconds,
        maxRequests: 200_000,
        ...(cell.mode === "stream" ? streamEnd(target) : {})
      })
    // a JIT-warm process, as a deployment runs: every cell once, unmeasured
    for (const target of [sides.current, sides.baseline]) {
      await sanityCheck(target)
      for (const cell of CELLS) await window(target, cell, 0, cell.concurrency === 1 ? 1 : 2)
    }
    const rounds = new Map<CellSpec, Array<Round>>(CELLS.map((cell) => [cell, []]))
    for (let round = 0; round < settings.rounds; round++) {
      for (const cell of CELLS) {
        const order = round % 2 === 0 ? (["current", "baseline"] as const) : (["baseline", "current"] as const)
        const runs: Partial<Record<"current" | "baseline", Figures>> = {}
        for (const side of order) {
          const run = await window(sides[side], cell, settings.warmupSeconds, settings.seconds)
          if (run.errors > 0) {
            throw new Error(`${side} build, ${cellName(cell)}: ${run.errors} errors, the first: ${run.firstError}`)
          }
          runs[side] = figuresOf(run)
        }
        rounds.get(cell)!.push({ current: runs.current!, baseline: runs.baseline! })
      }
    }
    return CELLS.map((cell) => judge(cell, rounds.get(cell)!, settings))
  } finally {
    await gateways.current?.stop()
    await gateways.baseline?.stop()
  }
}

const report = (verdicts: ReadonlyArray<CellVerdict>): string =>
  textTable(
    ["cell", "RPS current", "RPS baseline", "ratio", "p50 current ms", "p50 baseline ms", "difference ms", "verdict"],
    verdicts.map((v) => [
      v.cell,
      v.rps.current.toFixed(0),
      v.rps.baseline.toFixed(0),
      v.rps.ratio.toFixed(3),
      v.p50Ms.current.toFixed(3),
      v.p50Ms.baseline.toFixed(3),
      (v.p50Ms.difference >= 0 ? "+" : "") + v.p50Ms.difference.toFixed(3),
      v.failures.length === 0 ? "ok" : "SLOWER"
    ]),
    1
  )

const main = async (): Promise<number> => {
  mkdirSync(resultsDir, { recursive: true })
  const commit = baselineCommit(repoRoot, process.env["GUARD_BASELINE"])
  const entries = {
    current: resolve(repoRoot, process.env["GUARD_ENTRY"] ?? join("dist", "main.js")),
    baseline: buildCommit(repoRoot, commit)
  }
  const store = await benchStore()
  console.log(
    `guard: this tree against ${commit.slice(0, 12)} on ${store.postgres ? "PostgreSQL" : "the embedded store"}, ` +
      `${settings.rounds} rounds of ${settings.seconds} s per cell and build`
  )
  const upstream = await startServerChild(join(repoRoot, "bench", "fake-upstream.ts"), [], repoRoot)
  const loader = startLoader(repoRoot)
  const attempts: Array<ReadonlyArray<CellVerdict>> = []
  try {
    for (let attempt = 1; attempt <= settings.measurements; attempt++) {
      const verdicts = await compare(loader, upstream.port, store, entries, attempt)
      attempts.push(verdicts)
      console.log(`\n${attempt === 1 ? "measurement" : "measurement again, fresh processes"}:\n${report(verdicts)}`)
      if (confirmedFailures(attempts).length === 0) break
    }
  } finally {
    await store.drop()
  }
  // a lone measurement is kept only when it passed (or GUARD_MEASUREMENTS=1 asked for one)
  const confirmed = confirmedFailures(attempts)
  const failed = confirmed.length > 0
  writeFileSync(
    join(resultsDir, "guard.json"),
    `${JSON.stringify({ date: new Date().toISOString(), baseline: commit, settings, attempts, failed }, null, 2)}\n`
  )
  if (!failed) {
    console.log(`\nguard: not slower than ${commit.slice(0, 12)}`)
    return 0
  }
  console.log(`\nguard: SLOWER than ${commit.slice(0, 12)} in the same cells in every measurement:`)
  for (const failure of confirmed) {
    console.log(`  - ${failure}`)
  }
  console.log(
    "A change that makes the gateway slower on purpose moves bench/BASELINE to its own commit, with these figures in the commit message."
  )
  return 1
}

main().then(
  (code) => stopAll().then(() => process.exit(code)),
  (error: unknown) => {
    console.error(`guard failed to run: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`)
    return stopAll().then(() => process.exit(2))
  }
)
