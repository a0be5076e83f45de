/**
 * `node bench/instructions.ts <entry> [<entry>::NAME=value,...] ...`: the instructions each build executes
 * a request, counted by valgrind's callgrind. What else runs on the machine does not move the count, as
 * it moves time here (rounds of one `bench/cpu.ts` run spread by a third); what does move it is the
 * process's own state, what V8 compiled and what the collector keeps: processes of one build counted
 * 684-745 k instructions a whole answer after 4,000 requests of warm-up, 565-582 k after 12,000
 * (docs/performance-history.md). Give each build two or three times and
 * compare the spread. It answers "does this build do more work a request than that one" on a noisy
 * machine; what the work costs in time (the kernel's share, PostgreSQL's process, real caches) stays
 * `bench/cpu.ts`'s and `npm run bench`'s to measure, simulated caches aside (below). Needs valgrind
 * (Debian's package), and time: a process under callgrind runs 30-60 times slower, so each build takes
 * minutes.
 *
 * Each entry (`bench/entries.ts`) runs as the bench runs it (`npm start`'s flags and its own
 * `NODE_FLAGS` setting, a database of its own on PostgreSQL, or the embedded store with
 * `BENCH_DATABASE_URL=off`), under callgrind, two at a time (valgrind runs one thread at a time, so
 * two use the machine's two cores). Per mode: a warm-up of `INSTR_WARMUP` requests (12,000: V8 is
 * still moving the path to its optimizing compiler long after the first thousands; a whole answer
 * counted 840-975 k after 1,500, 665-762 k after 4,000, 565-582 k after 12,000), the
 * counters zeroed, `INSTR_REQUESTS` (4,000) at `INSTR_CONCURRENCY` (1), a wait for the request log's
 * rows to be written, and the counters read.
 *
 * With `INSTR_CACHE=on`, callgrind also simulates the processor's caches (`--cache-sim=yes`, about
 * half again as slow) and each build gets its misses a request, in the first-level caches and in the
 * last level, and a cycle estimate from them (instructions + 10 a first-level miss + 100 a last-level
 * one, KCachegrind's weights): what a larger heap or more code costs where the instructions are equal.
 * Callgrind simulates two levels, the first and the last (on these machines a 32 MiB L3 of its own,
 * where the real one is shared); `INSTR_CACHE=<size>,<ways>,<line>` (`524288,8,64`, say: an L2 of
 * 512 KiB) simulates that as the last level instead (`--LL`).
 *
 * `INSTR_KEEP=<dir>` keeps each measured dump there (`<entry's index>-<mode>.callgrind`): node's
 * binary is not stripped, so `callgrind_annotate` names what ran in it (V8's builtins, the bytecode
 * handlers of code still interpreted, the collector) and leaves the compiled JavaScript unnamed.
 *
 * The request log writes a batch every `GATEWAY_LOG_FLUSH_INTERVAL` (200 ms): under callgrind that
 * is a batch of a dozen rows where the real process writes hundreds, and a batch has a fixed cost, so
 * the log would count several times what it costs (main 790-798 k instructions a whole answer so,
 * 665-745 k with 10 s). Every entry runs with 10 seconds instead unless it sets its own, which gives
 * batches of the real size.
 */
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { callgrind, type Cost, costPerRequest, numberedDumps } from "./callgrind.ts"
import { benchStore } from "./database.ts"
import { envInt, envModes, extraNodeFlags, parseEntries } from "./entries.ts"
import { type RunningGateway, startGateway, startNodeFlags } from "./gateway.ts"
import { runLoad } from "./load.ts"
import { atCleanup, sleep, startServerChild, stopAll } from "./proc.ts"
import { requestBody, sanityCheck, streamEnd, type Target } from "./sanity.ts"

const repoRoot = fileURLToPath(new URL("..", import.meta.url))
const benchDir = join(repoRoot, "bench")

const FLUSH_INTERVAL_MS = 10_000
/** After the measured requests: the flush interval, and a second for the batch to be written. */
const FLUSH_WAIT_MS = FLUSH_INTERVAL_MS + 1_000
/** A start under callgrind takes 20-60 s on these machines. */
const READY_TIMEOUT_MS = 300_000
/** Builds measured at once. */
const AT_ONCE = 2

const describeCost = (cost: Cost, cacheSim: boolean): string =>
  `${(cost.instructions / 1e3).toFixed(1)} k instructions` + (cacheSim
    ? `, ${(cost.firstLevel / 1e3).toFixed(2)} k first-level misses (${
      (cost.firstLevelCode / 1e3).toFixed(2)
    } k code), ${cost.lastLevel.toFixed(0)} last-level (${cost.lastLevelCode.toFixed(0)} code), ${
      (cost.cycles / 1e3).toFixed(1)
    } k cycles estimated`
    : "")

const main = async (): Promise<void> => {
  const entries = parseEntries(process.argv.slice(2))
  if (entries.length === 0) {
    throw new Error("usage: node bench/instructions.ts <dist/main.js> [<other build's dist/main.js> ...]")
  }
  const warmup = envInt("INSTR_WARMUP", 12_000)
  const requests = envInt("INSTR_REQUESTS", 4_000)
  const concurrency = envInt("INSTR_CONCURRENCY", 1)
  const modes = envModes("INSTR_MODES")
  const cache = process.env["INSTR_CACHE"] ?? "off"
  if (cache !== "on" && cache !== "off" && !/^\d+,\d+,\d+$/.test(cache)) {
    throw new Error(`INSTR_CACHE: ${cache} is not on, off or <size>,<ways>,<line> (bytes, ways, bytes)`)
  }
  const cacheSim = cache !== "off"
  const keep = process.env["INSTR_KEEP"]
  if (keep !== undefined) mkdirSync(keep, { recursive: true })
  const flags = cacheSim ? ["--cache-sim=yes", ...(cache === "on" ? [] : [`--LL=${cache}`])] : []
  // the fake upstream stops itself after 15 minutes by default (`child.ts`); a run here takes longer
  process.env["BENCH_CHILD_MAX_SECONDS"] ??= String(4 * 3_600)
  const store = await benchStore()
  const upstream = await startServerChild(join(benchDir, "fake-upstream.ts"), [], repoRoot)
  const counted = new Map<string, Cost>()

  const measure = async (index: number): Promise<void> => {
    const { entry, env, label } = entries[index]!
    const dir = mkdtempSync(join(tmpdir(), "svc-gateway-instructions-"))
    atCleanup(() => rmSync(dir, { recursive: true, force: true }))
    const name = `instructions-${index}`
    const counters = callgrind(dir, "127.0.0.1", flags)
    const gateway: RunningGateway = await startGateway({
      repoRoot,
      resultsDir: join(benchDir, "results"),
      upstreamPort: upstream.port,
      variant: {
        name,
        env: { ...(await store.envFor(name)), GATEWAY_LOG_FLUSH_INTERVAL: `${FLUSH_INTERVAL_MS} millis`, ...env },
        entry,
        nodeFlags: [...startNodeFlags(), ...extraNodeFlags(env)],
        command: counters.command,
        readyTimeoutMs: READY_TIMEOUT_MS
      }
    })
    try {
      const target: Target = {
        name,
        url: `${gateway.baseUrl}/v1/chat/completions`,
        headers: { authorization: `Bearer ${gateway.apiKey}` },
        model: "bench/fake-model"
      }
      await sanityCheck(target)
      const pid = gateway.child.pid!
      for (const mode of modes) {
        const load = (count: number) =>
          runLoad({
            url: target.url,
            headers: target.headers,
            body: requestBody(target.model, mode),
            concurrency,
            warmupSeconds: 0,
            // bounded by the count; an hour only stops a build that hangs
            seconds: 3_600,
            maxRequests: count,
            ...(mode === "stream" ? streamEnd(target) : {})
          })
        await load(warmup)
        counters.zero(pid)
        const run = await load(requests)
        if (run.errors > 0) throw new Error(`${label} ${mode}: ${run.errors} errors, first: ${run.firstError}`)
        await sleep(FLUSH_WAIT_MS)
        const cost = costPerRequest(await counters.read(pid), run.latencies.length)
        counted.set(`${index} ${mode}`, cost)
        if (keep !== undefined) {
          const dump = numberedDumps(readdirSync(dir), "callgrind.out").at(-1)!
          copyFileSync(join(dir, dump), join(keep, `${index}-${mode}.callgrind`))
        }
        console.log(`${label} ${mode}: ${describeCost(cost, cacheSim)} a request`)
      }
    } finally {
      await gateway.stop()
    }
  }

  let next = 0
  await Promise.all(Array.from({ length: Math.min(AT_ONCE, entries.length) }, async () => {
    while (next < entries.length) await measure(next++)
  }))
  await store.drop()

  console.log(
    `\ninstructions a request, after ${warmup} requests of warm-up, over ${requests} at c=${concurrency} (${
      store.postgres ? "PostgreSQL" : "embedded store"
    }; the gateway's process only)`
  )
  for (const mode of modes) {
    const first = counted.get(`0 ${mode}`)!
    for (const [index, { label }] of entries.entries()) {
      const cost = counted.get(`${index} ${mode}`)!
      const ratio = (key: keyof Cost) => `${(cost[key] / first[key]).toFixed(3)}x`
      console.log(
        `${mode.padEnd(10)} ${(cost.instructions / 1e3).toFixed(1).padStart(8)} k (${ratio("instructions")})` +
          (cacheSim
            ? `  misses ${(cost.firstLevel / 1e3).toFixed(2)} k (${ratio("firstLevel")}) / ${
              cost.lastLevel.toFixed(0)
            } (${ratio("lastLevel")})  cycles ${(cost.cycles / 1e3).toFixed(1)} k (${ratio("cycles")})`
            : "") +
          `  ${label}`
      )
    }
  }
}

main().then(
  () => stopAll().then(() => process.exit(0)),
  (error: unknown) => {
    console.error(error)
    void stopAll().then(() => process.exit(1))
  }
)
