/**
 * `npm run bench`: the benchmark the project is judged by. Starts the fake upstream, the bare
 * pass-through and each gateway variant (what `npm start` runs: the bundle dist/main.js) as child
 * processes on 127.0.0.1, drives them from a separate load-generator process (direct / pass-through / gateway × non-stream / stream × concurrency),
 * prints the table and the targets with PASS/FAIL, and writes bench/results/latest.{json,md}.
 * Each cell is measured in rounds that alternate between the targets (all processes stay up), so
 * drift and the 2-vCPU scheduler's moods hit every target alike; a cell's figures use all its samples,
 * and the gateway's comparisons with the baseline, its log off and its compression off are also given
 * paired round by round (`paired.ts`).
 * Exits non-zero when a step fails (a child does not start, a sanity check fails), not when a target is
 * missed. Env: BENCH_SECONDS (measured seconds per cell, default 3), BENCH_ROUNDS (3),
 * BENCH_WARMUP_SECONDS (per round, 0.5), BENCH_TARGET_WARMUP_SECONDS (unrecorded load on each target per
 * mode at c=16 before the matrix, so JIT and pools are warm; 1), BENCH_MAX_REQUESTS (per cell, 200000), BENCH_CONCURRENCY
 * ("1,16,64"), BENCH_MODES ("non-stream,stream"), BENCH_TARGETS (comma list of target names; default
 * all but `gateway-twin`, a second process of the gateway measured only when named), BENCH_GATEWAY_ENTRY (gateway entry relative to the repo root; default the start script's),
 * BENCH_BASELINE_ENTRY (another build's entry, measured as the variant "baseline" in the same rounds, with a
 * database of its own like every gateway).
 */
import { type ChildProcess, execFileSync } from "node:child_process"
import { mkdirSync, writeFileSync } from "node:fs"
import os from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { benchStore } from "./database.ts"
import {
  chosenVariants,
  gatewayAvailable,
  gatewayEntry,
  type GatewayVariant,
  logTail,
  type RunningGateway,
  startGateway
} from "./gateway.ts"
import { type LoadRun, type LoadSpec, summarize } from "./load.ts"
import { startLoader } from "./loader.ts"
import { COMPARISONS, type PairedFigure, pairedFigure, pairedText } from "./paired.ts"
import { isRunning, isStopping, memoryMiB, startServerChild, stopAll } from "./proc.ts"
import {
  brief,
  type Cell,
  cellsText,
  type Derived,
  derivedText,
  deriveLoggingCost,
  deriveTargets,
  type Figures,
  firstErrors,
  fmt,
  type GatewayReport,
  markdown,
  memoryLine,
  type Meta,
  type Mode
} from "./report.ts"
import { requestBody, sanityCheck, streamEnd, type Target } from "./sanity.ts"
import { figuresOf } from "./verdict.ts"

/**
 * Gateway variants: each runs in its own fresh child (own port, data dir and, on PostgreSQL, database)
 * with `env` on top of the base environment, alongside the others, and is measured in the same
 * alternating rounds. To compare a setting, add a variant, e.g.
 *   { name: "gateway-log-on", env: { GATEWAY_REQUEST_LOG: "on" } }
 *   { name: "gateway-semi-16", env: {}, nodeFlags: ["--max-semi-space-size=16"] }  (replaces the start script's flags)
 * Every variant gets its own rows in the table and its own set of targets against the pass-through.
 */
const gatewayVariants = (postgres: boolean): ReadonlyArray<GatewayVariant> => {
  const baseline = process.env["BENCH_BASELINE_ENTRY"]
  return [
    { name: "gateway", env: {} },
    // the same gateway without its request log: what logging costs
    { name: "gateway-log-off", env: { GATEWAY_REQUEST_LOG: "off" } },
    // a second process of the same build and settings, only when BENCH_TARGETS names it: what two
    // identical gateways differ by in these rounds, the floor under every other comparison
    { name: "gateway-twin", env: {}, onlyWhenNamed: true },
    // the same gateway with compression off (the default is safe): what the compression stage costs
    { name: "gateway-compression-off", env: { GATEWAY_COMPRESSION: "off" } },
    // two processes behind one port (GATEWAY_WORKERS needs a shared store: PostgreSQL only)
    ...(postgres ? [{ name: "gateway-2-workers", env: { GATEWAY_WORKERS: "2" } }] : []),
    // another build (say, main's before a change) in the same rounds: did the change make it slower?
    ...(baseline === undefined || baseline === "" ? [] : [{ name: "baseline", env: {}, entry: baseline }])
  ]
}

/** Whole-run budget; per-cell seconds shrink to fit it. */
const BUDGET_SECONDS = 270
/** Allowance per gateway variant for start-up, provisioning and shutdown. */
const GATEWAY_OVERHEAD_SECONDS = 20

const repoRoot = fileURLToPath(new URL("..", import.meta.url))
const benchDir = join(repoRoot, "bench")
const resultsDir = join(benchDir, "results")

const envNumber = (name: string, fallback: number, min: number): number => {
  const raw = process.env[name]
  const value = raw === undefined || raw === "" ? fallback : Number(raw)
  if (!Number.isFinite(value) || value < min) throw new Error(`${name}=${String(raw)} is not a number >= ${min}`)
  return value
}

const settings = () => {
  const concurrency = (process.env["BENCH_CONCURRENCY"] ?? "1,16,64").split(",").map((c) => Number(c.trim()))
  if (concurrency.some((c) => !Number.isInteger(c) || c < 1 || c > 512)) {
    throw new Error(`BENCH_CONCURRENCY=${String(process.env["BENCH_CONCURRENCY"])} must list integers 1..512`)
  }
  const only = (process.env["BENCH_TARGETS"] ?? "").split(",").map((t) => t.trim()).filter((t) => t !== "")
  const modes = (process.env["BENCH_MODES"] ?? "non-stream,stream").split(",").map((m) => m.trim())
  if (modes.some((m) => m !== "non-stream" && m !== "stream")) {
    throw new Error(`BENCH_MODES=${String(process.env["BENCH_MODES"])} must list non-stream and/or stream`)
  }
  return {
    seconds: envNumber("BENCH_SECONDS", 3, 0.1),
    rounds: Math.min(10, Math.floor(envNumber("BENCH_ROUNDS", 3, 1))),
    warmupSeconds: envNumber("BENCH_WARMUP_SECONDS", 0.5, 0),
    targetWarmupSeconds: envNumber("BENCH_TARGET_WARMUP_SECONDS", 1, 0),
    maxRequests: Math.floor(envNumber("BENCH_MAX_REQUESTS", 200_000, 1)),
    concurrency,
    modes: modes.filter((m): m is Mode => m === "non-stream" || m === "stream"),
    only,
    wanted: (name: string): boolean => only.length === 0 || only.includes(name)
  }
}

/** How a gateway variant fared so far (mutable: a variant can fail mid-matrix). */
interface GatewayState {
  status: GatewayReport["status"]
  error: string | null
}

/** A target in the matrix; `down` says why it can no longer be measured (its process is gone). */
interface Bench {
  readonly target: Target
  readonly down: () => string | undefined
}

const cellLine = (cell: Cell): string => {
  const r = cell.result
  return `  ${cell.target.padEnd(12)} ${cell.mode.padEnd(10)} c=${String(cell.concurrency).padEnd(3)} ` +
    `${fmt(r.rps, 1).padStart(9)} rps  p50 ${fmt(r.latencyP50Ms, 3)} ms  p99 ${fmt(r.latencyP99Ms, 3)} ms  ` +
    `ttfb ${fmt(r.ttfbP50Ms, 3)} ms  errors ${r.errors}`
}

const main = async (): Promise<number> => {
  const config = settings()
  mkdirSync(resultsDir, { recursive: true })
  const store = await benchStore()
  console.log(
    `gateway store: ${store.postgres ? "PostgreSQL (DATABASE_URL, a database per gateway)" : "embedded (SQLite)"}`
  )
  const variants = chosenVariants(gatewayVariants(store.postgres), config.only)
  const withGateway = variants.some((v) => v.name === "gateway")
  const messageTargets = [
    "passthrough-msg",
    ...(withGateway ? ["gateway-msg", "gateway-msg-x"] : []),
    "passthrough-resp",
    ...(withGateway ? ["gateway-resp", "gateway-resp-x"] : [])
  ]
  const targetCount = ["direct", "passthrough", ...messageTargets].filter(config.wanted).length + variants.length
  const windows = targetCount * config.modes.length * config.concurrency.length * config.rounds
  const fixed = variants.length * GATEWAY_OVERHEAD_SECONDS + targetCount * config.modes.length *
      config.targetWarmupSeconds
  const fit = windows === 0 ? Infinity : (BUDGET_SECONDS - fixed) / windows - config.warmupSeconds - 0.1
  const roundSeconds = Math.round(Math.max(0.2, Math.min(config.seconds / config.rounds, fit)) * 1000) / 1000
  const seconds = Math.round(roundSeconds * config.rounds * 1000) / 1000
  if (seconds < config.seconds) {
    console.log(`note: ${config.seconds} s per cell would overrun ~5 min; using ${seconds} s`)
  }

  const cells: Array<Cell> = []
  const paired: Array<PairedFigure> = []
  const gateways: Array<GatewayReport> = []
  const failures: Array<string> = []
  const fail = (step: string, error: unknown): void => {
    const message = `${step}: ${error instanceof Error ? error.message : String(error)}`
    failures.push(message)
    console.log(`FAILED ${message}`)
  }

  console.log(
    `svc-gateway bench · Node ${process.version} · ${os.cpus().length} CPU(s) · ${seconds} s per cell ` +
      `(${config.rounds} round(s) of ${roundSeconds} s, each after ${config.warmupSeconds} s warm-up) · ` +
      `concurrency ${config.concurrency.join("/")}`
  )
  const upstream = await startServerChild(join(benchDir, "fake-upstream.ts"), [], repoRoot)
  const passthrough = await startServerChild(join(benchDir, "passthrough.ts"), [String(upstream.port)], repoRoot)
  const loader = startLoader(repoRoot)
  console.log(`fake upstream on 127.0.0.1:${upstream.port}, pass-through on 127.0.0.1:${passthrough.port}`)

  const childDown = (name: string, child: ChildProcess) => (): string | undefined =>
    isRunning(child)
      ? undefined
      : `${name} process exited (code ${String(child.exitCode)}, signal ${String(child.signalCode)})`
  const benches: Array<Bench> = []
  if (config.wanted("direct")) {
    benches.push({
      target: {
        name: "direct",
        url: `http://127.0.0.1:${upstream.port}/v1/chat/completions`,
        headers: {},
        model: "fake-model"
      },
      down: childDown("fake upstream", upstream.child)
    })
  }
  if (config.wanted("passthrough")) {
    benches.push({
      target: {
        name: "passthrough",
        url: `http://127.0.0.1:${passthrough.port}/v1/chat/completions`,
        headers: {},
        model: "fake-model"
      },
      down: childDown("pass-through", passthrough.child)
    })
  }
  if (config.wanted("passthrough-msg")) {
    benches.push({
      target: {
        name: "passthrough-msg",
        url: `http://127.0.0.1:${passthrough.port}/v1/messages`,
        headers: {},
        model: "fake-model",
        format: "messages"
      },
      down: childDown("pass-through", passthrough.child)
    })
  }
  if (config.wanted("passthrough-resp")) {
    benches.push({
      target: {
        name: "passthrough-resp",
        url: `http://127.0.0.1:${passthrough.port}/v1/responses`,
        headers: {},
        model: "fake-model",
        format: "responses"
      },
      down: childDown("pass-through", passthrough.child)
    })
  }

  const running: Array<RunningGateway> = []
  const reports = new Map<string, GatewayState>()
  const readyPeaks = new Map<string, number | null>()
  for (const variant of variants) {
    if (!gatewayAvailable(repoRoot)) {
      console.log(`gateway not available: ${gatewayEntry()} does not exist; skipping variant "${variant.name}"`)
      reports.set(variant.name, { status: "unavailable", error: `${gatewayEntry()} does not exist` })
      continue
    }
    const envNote = Object.keys(variant.env).length === 0 ? "" : ` with ${JSON.stringify(variant.env)}`
    console.log(`starting ${variant.name} (${variant.entry ?? gatewayEntry()}${envNote})`)
    try {
      const gateway = await startGateway({
        repoRoot,
        resultsDir,
        upstreamPort: upstream.port,
        variant: { ...variant, env: { ...(await store.envFor(variant.name)), ...variant.env } }
      })
      console.log(`${variant.name} ready on ${gateway.baseUrl} (log: ${gateway.logFile})`)
      reports.set(variant.name, { status: "ok", error: null })
      readyPeaks.set(variant.name, memoryMiB(gateway.child.pid))
      running.push(gateway)
      benches.push({
        target: {
          name: variant.name,
          url: `${gateway.baseUrl}/v1/chat/completions`,
          headers: { authorization: `Bearer ${gateway.apiKey}` },
          model: "bench/fake-model"
        },
        down: childDown(variant.name, gateway.child)
      })
      // Anthropic Messages on the main variant: to an Anthropic upstream (same format), and to the
      // chat-completions upstream (translated both ways)
      if (variant.name === "gateway") {
        for (
          const [name, model] of [["gateway-msg", "benchanthropic/fake-model"], [
            "gateway-msg-x",
            "bench/fake-model"
          ]] as const
        ) {
          if (!config.wanted(name)) continue
          benches.push({
            target: {
              name,
              url: `${gateway.baseUrl}/v1/messages`,
              headers: { "x-api-key": gateway.apiKey },
              model,
              format: "messages"
            },
            down: childDown(variant.name, gateway.child)
          })
        }
        // the Responses API: to OpenAI's adapter (same format, the request as sent), and to the
        // chat-completions upstream (translated both ways)
        for (
          const [name, model] of [["gateway-resp", "benchopenai/fake-model"], [
            "gateway-resp-x",
            "bench/fake-model"
          ]] as const
        ) {
          if (!config.wanted(name)) continue
          benches.push({
            target: {
              name,
              url: `${gateway.baseUrl}/v1/responses`,
              headers: { authorization: `Bearer ${gateway.apiKey}` },
              model,
              format: "responses"
            },
            down: childDown(variant.name, gateway.child)
          })
        }
      }
    } catch (error) {
      fail(variant.name, error)
      reports.set(variant.name, { status: "failed", error: error instanceof Error ? error.message : String(error) })
    }
  }

  const dropped = new Set<string>()
  const drop = (bench: Bench, error: unknown): void => {
    dropped.add(bench.target.name)
    fail(bench.target.name, error)
    const report = reports.get(bench.target.name)
    if (report !== undefined) {
      report.status = "failed"
      report.error = error instanceof Error ? error.message : String(error)
      const gateway = running.find((g) => g.variant.name === bench.target.name)
      if (gateway !== undefined) console.log(`${bench.target.name} log tail:\n${logTail(gateway.logFile)}`)
    }
  }
  const spec = (target: Target, mode: Mode, concurrency: number): LoadSpec => ({
    url: target.url,
    headers: target.headers,
    body: requestBody(target.model, mode, target.format),
    concurrency,
    warmupSeconds: config.warmupSeconds,
    seconds: roundSeconds,
    maxRequests: Math.max(1, Math.floor(config.maxRequests / config.rounds)),
    ...(mode === "stream" ? streamEnd(target) : {})
  })

  for (const bench of benches) {
    try {
      await sanityCheck(bench.target)
      for (const mode of config.modes) {
        await loader.run({ ...spec(bench.target, mode, 16), warmupSeconds: 0, seconds: config.targetWarmupSeconds })
      }
    } catch (error) {
      const down = bench.down()
      drop(
        bench,
        down === undefined ? error : new Error(`${down}; ${error instanceof Error ? error.message : String(error)}`)
      )
    }
  }

  for (const mode of config.modes) {
    for (const concurrency of config.concurrency) {
      const live = benches.filter((b) => !dropped.has(b.target.name))
      const runs = new Map<string, Array<LoadRun>>(live.map((b) => [b.target.name, []]))
      for (let round = 0; round < config.rounds; round++) {
        // Rotate the order each round so no target is always first, and run it backwards every other
        // round: a rotation alone keeps the cycle, so each target would always follow the same one (the
        // gateway the pass-through) and take what that one's window leaves behind (the request log's
        // last batch, written after the window ends; a collection) in every round.
        const cycle = round % 2 === 0 ? live : [...live].reverse()
        for (let i = 0; i < cycle.length; i++) {
          const bench = cycle[(i + round) % cycle.length]
          if (bench === undefined || dropped.has(bench.target.name)) continue
          const run = await loader.run(spec(bench.target, mode, concurrency))
          runs.get(bench.target.name)?.push(run)
          const down = bench.down()
          if (down !== undefined) drop(bench, new Error(`${down} during ${mode} c=${concurrency}`))
        }
      }
      for (const bench of live) {
        const collected = runs.get(bench.target.name) ?? []
        if (collected.length === 0) continue
        const cell: Cell = {
          target: bench.target.name,
          mode,
          concurrency,
          result: summarize(collected),
          rounds: collected.map(figuresOf)
        }
        cells.push(cell)
        console.log(cellLine(cell))
      }
      const roundsOf = (target: string): ReadonlyArray<Figures> =>
        cells.find((cell) => cell.target === target && cell.mode === mode && cell.concurrency === concurrency)
          ?.rounds ?? []
      for (const { current, reference } of COMPARISONS) {
        const figure = pairedFigure(current, reference, mode, concurrency, roundsOf(current), roundsOf(reference))
        if (figure !== undefined) paired.push(figure)
      }
    }
  }

  const passthroughRss = config.wanted("passthrough") ? memoryMiB(passthrough.child.pid) : null
  for (const variant of variants) {
    const report = reports.get(variant.name) ?? { status: "failed", error: "not started" }
    const gateway = running.find((g) => g.variant.name === variant.name)
    gateways.push({
      name: variant.name,
      env: variant.env,
      status: report.status,
      error: report.error,
      peakRssMiB: memoryMiB(gateway?.child.pid),
      readyPeakRssMiB: readyPeaks.get(variant.name) ?? null,
      endRssMiB: memoryMiB(gateway?.child.pid, "VmRSS")
    })
    await gateway?.stop()
  }
  await store.drop()

  const derived: Array<Derived> = [
    ...gateways.filter((g) => g.status !== "unavailable" && g.name !== "gateway-log-off").flatMap((g) =>
      deriveTargets(cells, g)
    ),
    ...deriveLoggingCost(cells, "gateway", "gateway-log-off"),
    // Messages and Responses clients, against the pass-through of their own format (memory is the main variant's)
    ...([
      ["gateway-msg", "passthrough-msg"],
      ["gateway-msg-x", "passthrough-msg"],
      ["gateway-resp", "passthrough-resp"],
      [
        "gateway-resp-x",
        "passthrough-resp"
      ]
    ] as const).flatMap(([name, floor]) =>
      cells.some((cell) => cell.target === name)
        ? deriveTargets(cells, {
          name,
          env: {},
          status: "ok",
          error: null,
          peakRssMiB: null,
          readyPeakRssMiB: null,
          endRssMiB: null
        }, floor)
          .filter((d) => d.name !== "peak RSS (VmHWM)")
        : []
    )
  ]
  console.log(`\n${cellsText(cells)}`)
  const errors = firstErrors(cells)
  if (errors.length > 0) console.log(`\nerrors:\n${errors.map((e) => `  ${e}`).join("\n")}`)
  console.log(`\nmemory (VmHWM = peak RSS): pass-through peak ${fmt(passthroughRss, 1)} MiB`)
  for (const g of gateways) if (g.status !== "unavailable") console.log(`  ${memoryLine(g)}`)
  console.log(`\ntargets:\n${derivedText(derived)}`)
  if (paired.length > 0) {
    console.log(
      `\npaired over rounds (median of each round's comparison; against a variant that leaves a part out, 1 - RPS ratio is what the part costs; against the pass-through, the RPS ratio is the gateway's share of it):`
    )
    console.log(pairedText(paired))
  }
  for (const g of gateways) {
    if (g.status === "unavailable") console.log(`${g.name}: not available (${g.error ?? ""}), targets not judged`)
  }

  const meta: Meta = {
    date: new Date().toISOString(),
    node: process.version,
    cpus: `${os.cpus().length} x ${os.cpus()[0]?.model.trim() ?? "unknown CPU"}`,
    secondsPerCell: seconds,
    rounds: config.rounds,
    warmupSecondsPerRound: config.warmupSeconds,
    targetWarmupSeconds: config.targetWarmupSeconds,
    maxRequestsPerCell: config.maxRequests,
    passthroughPeakRssMiB: passthroughRss
  }
  // what translating costs per streamed event, apart from any I/O (bench/codecs.ts)
  const codecs = execFileSync(process.execPath, [join(benchDir, "codecs.ts")], { cwd: repoRoot, encoding: "utf8" })
    .trimEnd()
  console.log(`\ntranslation cost per streamed event:\n${codecs}`)
  writeFileSync(
    join(resultsDir, "latest.json"),
    `${JSON.stringify({ meta, cells, gateways, derived, paired, failures, codecs: codecs.split("\n") }, null, 2)}\n`
  )
  writeFileSync(
    join(resultsDir, "latest.md"),
    `${markdown(meta, cells, gateways, derived, failures)}\n${
      paired.length === 0 ? "" : `## Paired over rounds\n\n\`\`\`\n${pairedText(paired)}\n\`\`\`\n\n`
    }## Translation cost per streamed event\n\n\`\`\`\n${codecs}\n\`\`\`\n`
  )
  console.log(`\nwrote bench/results/latest.json and bench/results/latest.md`)
  if (failures.length > 0) {
    console.log(`\n${failures.length} step(s) failed:\n${failures.map((f) => `  - ${brief(f)}`).join("\n")}`)
  }
  return failures.length > 0 ? 1 : 0
}

const shutdown = async (code: number): Promise<never> => {
  await stopAll()
  process.exit(code)
}

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    console.log(`\n${signal}: stopping children`)
    void shutdown(130)
  })
}

main().then(
  (code) => shutdown(code),
  (error: unknown) => {
    if (isStopping()) return // a signal is already shutting down; its exit code stands
    console.error(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`)
    return shutdown(1)
  }
)
