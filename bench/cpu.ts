/**
 * `node bench/cpu.ts <entry> [<entry> ...]`: the CPU time each build spends per request, for bisecting.
 * RPS on a 2-core machine moves with whatever else runs; the CPU a gateway process spends on a fixed
 * number of requests moves much less, so builds a few percent apart can be told apart in one run. Each
 * entry (a `dist/main.js`, of this tree or of another commit's worktree) runs as the bench runs it
 * (`npm start`'s Node flags, a database of its own on PostgreSQL, or the embedded store with
 * `BENCH_DATABASE_URL=off`; `<entry>::NAME=value,...` runs it with those settings), and the rounds alternate between them: per round and entry, a warm-up, then
 * `CPU_REQUESTS` requests at concurrency `CPU_CONCURRENCY` (16) per mode. CPU is read from
 * /proc/<pid>/task/<tid>/schedstat (every thread: main, GC helpers, libuv), and PostgreSQL's own from its
 * processes, so the request log's cost on the server is counted too. Prints the median over rounds of
 * µs per request (and of the main thread's share alone), and each entry's ratio to the first. The entry `passthrough` measures the bare
 * pass-through, the floor. `CPU_FORMAT` picks the inbound format (chat completions by default; see
 * `formats.ts`; the pass-through forwards the same path). `CPU_NODE_FLAGS` adds Node flags to every build
 * (`--cpu-prof --cpu-prof-dir=<dir>` writes each one's profile when it stops; with `--trace-gc-nvp` each
 * build's collections in the measured rounds are summed per request at the end, from its log
 * `bench/results/cpu-<n>.log`: what it promoted to the old generation moves far less from run to run
 * than time does, and start-up promotes most of a process's total). The main thread's wakeups per
 * request count the event-loop turns an answer took (at c=1; under load one turn serves several), and
 * the share of the process's CPU spent in the kernel (`/proc/<pid>/stat`'s ticks) says on which side of
 * the system calls a difference between builds lies.
 */
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { benchStore } from "./database.ts"
import { envInt, envModes, extraNodeFlags, parseEntries } from "./entries.ts"
import { formatFrom, gatewayTarget, needsEveryProvider } from "./formats.ts"
import { type RunningGateway, startGateway, startNodeFlags } from "./gateway.ts"
import type { LoadSpec } from "./load.ts"
import { startLoader } from "./loader.ts"
import { cpuNs, postgresNs, startServerChild, stopAll, userKernelTicks } from "./proc.ts"
import type { Mode } from "./report.ts"
import { requestBody, sanityCheck, streamEnd, type Target } from "./sanity.ts"
import { median } from "./verdict.ts"

const repoRoot = fileURLToPath(new URL("..", import.meta.url))
const benchDir = join(repoRoot, "bench")

/**
 * A process's main thread from one read of its schedstat: on-CPU nanoseconds (`ns`; the thread that
 * serves requests, so what it spends bounds the throughput; the rest of `cpuNs` is V8's helpers and
 * libuv's pool), nanoseconds it was ready to run but waited for a CPU (`waitNs`: another process had
 * both cores, PostgreSQL's backend woken by a batch, say; time the requests in flight stood still), and
 * how many times it was put on a CPU (`slices`): at c=1 each time it waited for something (the next
 * event-loop turn's I/O, a timer) and woke, so per request it counts the turns the event loop took to
 * answer.
 */
const mainThread = (pid: number): { readonly ns: number; readonly waitNs: number; readonly slices: number } => {
  const [ns = "0", waitNs = "0", slices = "0"] = readFileSync(`/proc/${pid}/task/${pid}/schedstat`, "utf8").split(" ")
  return { ns: Number(ns), waitNs: Number(waitNs), slices: Number(slices) }
}

/**
 * When a process started, as `Date.now()` would have read then: its start time in clock ticks since boot
 * (USER_HZ, 100 on Linux) against the machine's uptime. A `--trace-gc-nvp` line counts from its isolate's
 * start, a few tens of ms later: close enough to place a collection in a window of seconds.
 */
const startedAtMs = (pid: number): number => {
  // the fields after the command's closing parenthesis; the start time is the 22nd field of the line
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
  const ticks = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19])
  const uptimeSeconds = Number(readFileSync("/proc/uptime", "utf8").split(" ")[0])
  return Date.now() - (uptimeSeconds - ticks / 100) * 1000
}

const main = async (): Promise<void> => {
  const specs = parseEntries(process.argv.slice(2))
  const entries = specs.map((s) => s.entry)
  if (entries.length === 0) {
    throw new Error("usage: node bench/cpu.ts <dist/main.js> [<other build's dist/main.js> ...]")
  }
  const rounds = envInt("CPU_ROUNDS", 5)
  const requests = envInt("CPU_REQUESTS", 10_000)
  const concurrency = envInt("CPU_CONCURRENCY", 16)
  const modes = envModes("CPU_MODES")
  const format = formatFrom("CPU_FORMAT")
  const store = await benchStore()
  const upstream = await startServerChild(join(benchDir, "fake-upstream.ts"), [], repoRoot)
  const loader = startLoader(repoRoot)
  const load = loader.child
  const runLoad = loader.run
  // what each measured process is: a gateway, or the bare pass-through (the entry `passthrough`)
  interface Measured {
    readonly name: string
    readonly pid: number
    readonly target: Target
    readonly stop: () => Promise<void>
  }
  const gateways: Array<Measured> = []
  const asMeasured = (name: string, g: RunningGateway): Measured => ({
    name,
    pid: g.child.pid!,
    target: gatewayTarget(name, g.baseUrl, g.apiKey, format),
    stop: g.stop
  })
  for (const [i, { entry, env, label }] of specs.entries()) {
    const name = `cpu-${i}`
    if (label === "passthrough") {
      const passthrough = await startServerChild(join(benchDir, "passthrough.ts"), [String(upstream.port)], repoRoot)
      gateways.push({
        name,
        pid: passthrough.child.pid!,
        target: {
          name,
          url: `http://127.0.0.1:${passthrough.port}${format.path}`,
          headers: {},
          model: "fake-model",
          format: format.format
        },
        stop: () => Promise.resolve()
      })
      continue
    }
    gateways.push(asMeasured(
      name,
      await startGateway({
        repoRoot,
        resultsDir: join(benchDir, "results"),
        upstreamPort: upstream.port,
        variant: {
          name,
          env: { ...(await store.envFor(name)), ...env },
          entry,
          everyProvider: needsEveryProvider(format),
          // CPU_NODE_FLAGS: more Node flags for every build, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof";
          // an entry's own NODE_FLAGS setting (space-separated) for that one
          nodeFlags: [...startNodeFlags(), ...extraNodeFlags(env, process.env["CPU_NODE_FLAGS"])]
        }
      })
    ))
  }
  const target = (g: Measured): Target => g.target
  const spec = (g: Measured, mode: Mode, count: number): LoadSpec => ({
    url: target(g).url,
    headers: target(g).headers,
    body: requestBody(target(g).model, mode, target(g).format),
    concurrency,
    warmupSeconds: 0,
    seconds: 120,
    maxRequests: count,
    ...(mode === "stream" ? streamEnd(target(g)) : {})
  })
  for (const g of gateways) {
    await sanityCheck(target(g))
    for (const mode of modes) await runLoad(spec(g, mode, 5 * requests))
  }
  // the measured windows of each build and mode, in ms since its process started (for the collector's log)
  const windows = new Map<string, Array<{ readonly from: number; readonly to: number; readonly requests: number }>>()
  const startedAt = new Map(gateways.map((g) => [g.name, startedAtMs(g.pid)]))
  const samples = new Map<
    string,
    Array<
      {
        gateway: number
        main: number
        waited: number
        slices: number
        kernel: number
        postgres: number
        others: number
        rps: number
      }
    >
  >()
  for (let round = 0; round < rounds; round++) {
    for (const mode of modes) {
      for (let i = 0; i < gateways.length; i++) {
        const g = gateways[(i + round) % gateways.length]!
        await runLoad(spec(g, mode, Math.ceil(requests / 5)))
        const pid = g.pid
        const before = [cpuNs(pid), postgresNs(), cpuNs(upstream.child.pid!), cpuNs(load.pid!)] as const
        const mainBefore = mainThread(pid)
        const ticksBefore = userKernelTicks(pid)
        const from = Date.now() - startedAt.get(g.name)!
        const run = await runLoad(spec(g, mode, requests))
        const to = Date.now() - startedAt.get(g.name)!
        // the log's rows are written behind the answers: give the writer its flush before reading
        await new Promise((done) => setTimeout(done, 300))
        const after = [cpuNs(pid), postgresNs(), cpuNs(upstream.child.pid!), cpuNs(load.pid!)] as const
        const mainAfter = mainThread(pid)
        const ticksAfter = userKernelTicks(pid)
        const n = run.latencies.length
        if (run.errors > 0) throw new Error(`${g.name} ${mode}: ${run.errors} errors, first: ${run.firstError}`)
        const key = `${g.name} ${mode}`
        windows.set(key, [...(windows.get(key) ?? []), { from, to, requests: n }])
        const list = samples.get(key) ?? []
        list.push({
          gateway: (after[0] - before[0]) / n / 1e3,
          main: (mainAfter.ns - mainBefore.ns) / n / 1e3,
          waited: (mainAfter.waitNs - mainBefore.waitNs) / n / 1e3,
          slices: (mainAfter.slices - mainBefore.slices) / n,
          kernel: (ticksAfter.kernel - ticksBefore.kernel) /
            Math.max(1, ticksAfter.kernel + ticksAfter.user - ticksBefore.kernel - ticksBefore.user),
          postgres: (after[1] - before[1]) / n / 1e3,
          // the rest of the machine's work per request: the fake upstream and the load generator
          others: (after[2] - before[2] + after[3] - before[3]) / n / 1e3,
          rps: n / run.seconds
        })
        samples.set(key, list)
      }
    }
  }
  console.log(
    `CPU per request, median of ${rounds} rounds of ${requests} requests at c=${concurrency} (${
      store.postgres ? "PostgreSQL" : "embedded store"
    })`
  )
  for (const mode of modes) {
    const first = median((samples.get(`cpu-0 ${mode}`) ?? []).map((s) => s.gateway))
    for (const [i, { label: entry }] of specs.entries()) {
      const list = samples.get(`cpu-${i} ${mode}`) ?? []
      const gw = median(list.map((s) => s.gateway))
      const spread = list.map((s) => s.gateway.toFixed(1)).join(" ")
      console.log(
        `${mode.padEnd(10)} ${gw.toFixed(1).padStart(7)} µs gateway (${(gw / first).toFixed(3)}x)  ` +
          `(main thread ${median(list.map((s) => s.main)).toFixed(1)}, ` +
          `waited ${median(list.map((s) => s.waited)).toFixed(1)} for a CPU, ` +
          `${median(list.map((s) => s.slices)).toFixed(2)} wakeups, ` +
          `${(median(list.map((s) => s.kernel)) * 100).toFixed(0)} % in the kernel)  ` +
          `${median(list.map((s) => s.postgres)).toFixed(1).padStart(6)} µs postgres  ` +
          `${median(list.map((s) => s.others)).toFixed(1).padStart(6)} µs upstream+load  ` +
          `${median(list.map((s) => s.rps)).toFixed(0).padStart(6)} rps  [${spread}]  ${entry}`
      )
    }
  }
  for (const g of gateways) await g.stop()
  await store.drop()
  if ((process.env["CPU_NODE_FLAGS"] ?? "").includes("--trace-gc-nvp")) {
    // start-up and warm-up promote most of a process's total (compiled code, caches, pools), so what
    // a request costs the collector is read in the measured windows only
    console.log("collector in the measured rounds, per request (and the whole process's totals):")
    for (const [i, { label }] of specs.entries()) {
      if (label === "passthrough") continue
      const log = collections(readFileSync(join(benchDir, "results", `cpu-${i}.log`), "utf8"))
      const all = sumCollections(log)
      for (const mode of modes) {
        const measured = windows.get(`cpu-${i} ${mode}`) ?? []
        const requests = measured.reduce((sum, w) => sum + w.requests, 0)
        const inside = sumCollections(log.filter((c) => measured.some((w) => c.atMs >= w.from && c.atMs <= w.to)))
        console.log(
          `${mode.padEnd(10)} ${(inside.promoted / requests).toFixed(0).padStart(6)} B promoted, ` +
            `${(inside.young / requests * 1000).toFixed(1)} young and ${(inside.full / requests * 1e5).toFixed(1)} ` +
            `full collections per 1,000 and 100,000 requests, ${
              (inside.pauseMs * 1000 / requests).toFixed(1)
            } µs paused  ` +
            `(process: ${(all.promoted / 1e6).toFixed(1)} MB, ${all.young} young, ${all.full} full)  ${label}`
        )
      }
    }
  }
}

interface Collection {
  readonly atMs: number
  readonly kind: string
  readonly promoted: number
  readonly pauseMs: number
}

/** The collections of a `--trace-gc-nvp` log, one line each: `[pid:isolate:0]  <ms since start> ms: pause=... gc=s ...`. */
const collections = (log: string): Array<Collection> =>
  log.split("\n").flatMap((line) => {
    const at = /^\[[^\]]*\]\s+([\d.]+) ms: /.exec(line)
    const kind = / gc=(\w+) /.exec(line)?.[1]
    if (at === null || kind === undefined) return []
    return [{
      atMs: Number(at[1]),
      kind,
      promoted: Number(/ promoted=(\d+)/.exec(line)?.[1] ?? 0),
      pauseMs: Number(/ pause=([\d.]+)/.exec(line)?.[1] ?? 0)
    }]
  })

/** Bytes promoted to the old generation, young (`gc=s`) and full (`gc=mc`, `gc=ms`) collections, pauses. */
const sumCollections = (list: ReadonlyArray<Collection>) => {
  const sum = { promoted: 0, young: 0, full: 0, pauseMs: 0 }
  for (const c of list) {
    if (c.kind === "s") sum.young++
    else if (c.kind === "mc" || c.kind === "ms") sum.full++
    sum.promoted += c.promoted
    sum.pauseMs += c.pauseMs
  }
  return sum
}

main().then(
  () => stopAll().then(() => process.exit(0)),
  (error: unknown) => {
    console.error(error)
    void stopAll().then(() => process.exit(1))
  }
)
