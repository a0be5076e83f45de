/**
 * `node bench/steps.ts <entry> [<entry>::NAME=value,...] ...`: how much of Effect's machinery each
 * build runs a request: run-loop steps, continuations applied inline, fibers started, fiber runs
 * (starts and resumes), and `JSON.parse` / `JSON.stringify` calls (`countingBundle.ts`). Time on these
 * machines moves by a third between rounds and callgrind takes minutes a build; these counts barely
 * move and take seconds, so they say at once whether a change added fibers or steps to the path, and
 * where to look when `bench/cpu.ts` finds a build slower.
 *
 * Each entry runs as the bench runs it (`npm start`'s flags, a database of its own on PostgreSQL, or
 * the embedded store with `BENCH_DATABASE_URL=off`), from a counting copy of its bundle written next to
 * it (`main.counting.js`, so its packages outside the bundle resolve as the bundle's do), one at a
 * time. `STEPS_FORMAT` picks the inbound format (`formats.ts`; chat completions by default). Per
 * mode: `STEPS_WARMUP` requests (2,000), a reading, `STEPS_REQUESTS` (2,000) at `STEPS_CONCURRENCY`
 * (1), a reading. What runs on a timer (the request log's flush every 200 ms, the
 * key's last-used flush) is counted too, spread over the requests of its interval, as in a real process.
 *
 * `STEPS_TALLY=<n>` also counts each step by what it evaluated (a service looked up, an exit handed
 * back, a generator resumed, a continuation by the start of its source) and prints the `n` most
 * frequent a request, per build and mode: where a build's steps go, and which code to look at.
 */
import { readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import {
  COUNT_KEYS,
  countingBundle,
  type Counts,
  COUNTS_FILE_VARIABLE,
  perRequest,
  tallyPerRequest
} from "./countingBundle.ts"
import { benchStore } from "./database.ts"
import { envInt, envModes, extraNodeFlags, parseEntries } from "./entries.ts"
import { formatFrom, gatewayTarget, needsEveryProvider } from "./formats.ts"
import { startGateway, startNodeFlags } from "./gateway.ts"
import { runLoad } from "./load.ts"
import { atCleanup, sleep, startServerChild, stopAll } from "./proc.ts"
import type { Mode } from "./report.ts"
import { requestBody, sanityCheck, streamEnd } from "./sanity.ts"

const repoRoot = fileURLToPath(new URL("..", import.meta.url))
const benchDir = join(repoRoot, "bench")

/** How long a process may take to write its counts after the signal. */
const READ_TIMEOUT_MS = 10_000

/** Signals the process and waits for the counts it writes, the `reads`-th writing. */
const readCounts = async (pid: number, file: string, reads: number): Promise<Counts> => {
  process.kill(pid, "SIGUSR2")
  const deadline = Date.now() + READ_TIMEOUT_MS
  while (Date.now() < deadline) {
    try {
      const counts = JSON.parse(readFileSync(file, "utf8")) as Counts
      if (counts.reads === reads) return counts
    } catch {
      // not written yet, or written halfway
    }
    await sleep(10)
  }
  throw new Error(`process ${pid} wrote no counts to ${file} within ${READ_TIMEOUT_MS / 1000} s`)
}

const main = async (): Promise<void> => {
  const entries = parseEntries(process.argv.slice(2))
  if (entries.length === 0) {
    throw new Error("usage: node bench/steps.ts <dist/main.js> [<other build's dist/main.js> ...]")
  }
  const warmup = envInt("STEPS_WARMUP", 2_000)
  const requests = envInt("STEPS_REQUESTS", 2_000)
  const concurrency = envInt("STEPS_CONCURRENCY", 1)
  const modes = envModes("STEPS_MODES")
  const format = formatFrom("STEPS_FORMAT")
  // unset: no tally (and steps as fast as the plain count's)
  const tally = process.env["STEPS_TALLY"] === undefined ? 0 : envInt("STEPS_TALLY", 1)
  const store = await benchStore()
  const upstream = await startServerChild(join(benchDir, "fake-upstream.ts"), [], repoRoot)
  const counted: Array<Record<Mode, Record<string, number>>> = []

  for (const [index, { entry, env, label }] of entries.entries()) {
    const counting = join(dirname(entry), "main.counting.js")
    writeFileSync(counting, countingBundle(readFileSync(entry, "utf8"), { tally: tally > 0 }))
    atCleanup(() => rmSync(counting, { force: true }))
    const countsFile = join(tmpdir(), `svc-gateway-steps-${process.pid}-${index}.json`)
    atCleanup(() => rmSync(countsFile, { force: true }))
    const name = `steps-${index}`
    const gateway = await startGateway({
      repoRoot,
      resultsDir: join(benchDir, "results"),
      upstreamPort: upstream.port,
      variant: {
        name,
        env: { ...(await store.envFor(name)), [COUNTS_FILE_VARIABLE]: countsFile, ...env },
        entry: counting,
        everyProvider: needsEveryProvider(format),
        nodeFlags: [...startNodeFlags(), ...extraNodeFlags(env)]
      }
    })
    try {
      const target = gatewayTarget(name, gateway.baseUrl, gateway.apiKey, format)
      await sanityCheck(target)
      const pid = gateway.child.pid!
      let reads = 0
      const byMode = {} as Record<Mode, Record<string, number>>
      for (const mode of modes) {
        const load = async (count: number) => {
          const run = await runLoad({
            url: target.url,
            headers: target.headers,
            body: requestBody(target.model, mode, target.format),
            concurrency,
            warmupSeconds: 0,
            seconds: 600,
            maxRequests: count,
            ...(mode === "stream" ? streamEnd(target) : {})
          })
          if (run.errors > 0) throw new Error(`${label} ${mode}: ${run.errors} errors, first: ${run.firstError}`)
          return run.latencies.length
        }
        await load(warmup)
        const before = await readCounts(pid, countsFile, ++reads)
        const answered = await load(requests)
        const after = await readCounts(pid, countsFile, ++reads)
        byMode[mode] = perRequest(before, after, answered)
        console.log(
          `${label} ${mode}: ${COUNT_KEYS.map((key) => `${key} ${byMode[mode][key]!.toFixed(2)}`).join(", ")} a request`
        )
        for (const [kind, count] of tallyPerRequest(before, after, answered, tally)) {
          console.log(`  ${count.toFixed(2).padStart(6)}  ${kind}`)
        }
      }
      counted.push(byMode)
    } finally {
      await gateway.stop()
    }
  }
  await store.drop()

  console.log(
    `\na request (${
      process.env["STEPS_FORMAT"] ?? "chat"
    }), after ${warmup} of warm-up, over ${requests} at c=${concurrency} (${
      store.postgres ? "PostgreSQL" : "embedded store"
    }); the ratio to the first build in brackets`
  )
  for (const mode of modes) {
    const first = counted[0]![mode]
    for (const [index, { label }] of entries.entries()) {
      const counts = counted[index]![mode]
      const cells = COUNT_KEYS.map((key) =>
        `${key} ${counts[key]!.toFixed(1)} (${(first[key]! === 0 ? 0 : counts[key]! / first[key]!).toFixed(2)})`
      )
      console.log(`${mode.padEnd(10)} ${cells.join("  ")}  ${label}`)
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
