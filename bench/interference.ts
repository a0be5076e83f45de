/**
 * `node bench/interference.ts`: how much of the request log's cost is the machine's, not the gateway's.
 * On two cores the gateway is one thread that needs most of a core, so CPU that PostgreSQL spends
 * writing the log's rows is taken from the gateway's throughput whatever the gateway's own code does.
 * This runs two gateways (log off, log on) and, in alternating rounds at c=16 on whole answers, the
 * log-off one three ways: alone, next to a process that burns `BURN_MS` of CPU every `BURN_PERIOD_MS`
 * (default 6 of 83 ms: about what PostgreSQL's backend spends on the rows of a batch at this rate, 12 µs
 * a row), and the log-on one. If the burner costs the log-off gateway most of what the log costs, the
 * log's cost is mostly PostgreSQL sharing the cores. `INTERFERENCE_ROUNDS` (6), `INTERFERENCE_SECONDS` (3).
 */
import { spawn } from "node:child_process"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { benchStore } from "./database.ts"
import { type RunningGateway, startGateway } from "./gateway.ts"
import { startLoader } from "./loader.ts"
import { startServerChild, stopAll, track } from "./proc.ts"
import { requestBody } from "./sanity.ts"
import { median } from "./verdict.ts"

const repoRoot = fileURLToPath(new URL("..", import.meta.url))

const envNumber = (name: string, fallback: number): number => {
  const value = Number(process.env[name] ?? fallback)
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number`)
  return value
}

const rounds = Math.round(envNumber("INTERFERENCE_ROUNDS", 6))
const seconds = envNumber("INTERFERENCE_SECONDS", 3)
const burnMs = envNumber("BURN_MS", 6)
const periodMs = envNumber("BURN_PERIOD_MS", 83)
if (burnMs >= periodMs) throw new Error("BURN_MS must be less than BURN_PERIOD_MS")

const BURNER = `const tick = () => { const until = performance.now() + ${burnMs}; while (performance.now() < until); ` +
  `setTimeout(tick, ${periodMs - burnMs}) }; tick()`

const main = async (): Promise<void> => {
  const store = await benchStore()
  const upstream = await startServerChild(join(repoRoot, "bench", "fake-upstream.ts"), [], repoRoot)
  const gateway = async (name: string, env: Readonly<Record<string, string>>) =>
    startGateway({
      repoRoot,
      resultsDir: join(repoRoot, "bench", "results"),
      upstreamPort: upstream.port,
      variant: { name, env: { ...(await store.envFor(name)), ...env } }
    })
  const logOff = await gateway("gateway-log-off", { GATEWAY_REQUEST_LOG: "off" })
  const logOn = await gateway("gateway", {})
  const loader = startLoader(repoRoot)
  const rps = async (target: RunningGateway, windowSeconds: number): Promise<number> => {
    const run = await loader.run({
      url: `${target.baseUrl}/v1/chat/completions`,
      headers: { authorization: `Bearer ${target.apiKey}` },
      body: requestBody("bench/fake-model", "non-stream"),
      concurrency: 16,
      warmupSeconds: 0.5,
      seconds: windowSeconds,
      maxRequests: 1_000_000
    })
    if (run.errors > 0) throw new Error(`${target.variant.name}: ${run.errors} errors, first: ${run.firstError}`)
    // the samples cross IPC as a plain object with numeric keys
    return Object.keys(run.latencies).length / run.seconds
  }
  console.log(
    `interference: ${rounds} rounds of ${seconds} s, burner ${burnMs} ms every ${periodMs} ms, ` +
      `${store.postgres ? "PostgreSQL" : "embedded store"}`
  )
  await rps(logOff, 1)
  await rps(logOn, 1)
  const alone: Array<number> = []
  const burned: Array<number> = []
  const logged: Array<number> = []
  for (let round = 0; round < rounds; round++) {
    alone.push(await rps(logOff, seconds))
    const burner = track(spawn(process.execPath, ["-e", BURNER], { stdio: "ignore" })) // stopped by stopAll too
    try {
      burned.push(await rps(logOff, seconds))
    } finally {
      burner.kill()
    }
    logged.push(await rps(logOn, seconds))
  }
  const base = median(alone)
  const less = (value: number) => `${((1 - value / base) * 100).toFixed(1)} % less`
  console.log(
    `median RPS at c=16, whole: log off ${base.toFixed(0)}; log off next to the burner ` +
      `${median(burned).toFixed(0)} (${less(median(burned))}); log on ${median(logged).toFixed(0)} (${
        less(median(logged))
      })`
  )
  await logOff.stop()
  await logOn.stop()
  await store.drop()
}

main().then(
  async () => {
    await stopAll()
    process.exit(0)
  },
  async (error: unknown) => {
    console.error(error)
    await stopAll()
    process.exit(1)
  }
)
