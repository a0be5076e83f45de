/**
 * `npm run bench:floor`: the memory floor under the gateway's peak-RSS figure. A bare Node proxy,
 * written as plain JavaScript and run with the `start` script's Node flags, forwards the bench's
 * requests to the fake upstream: once with node:http's client, once with undici's Agent (the client
 * the gateway uses). Each is driven through the bench's cells (whole and streamed, concurrency 1, 16,
 * 64; `BENCH_SECONDS` each, 3 by default) and its peak RSS is read from /proc at the end. The bench's
 * own pass-through is not this floor: it runs through Node's TypeScript stripping, on Node's default
 * flags. Loopback only, bounded, and every child stops with the run.
 */
import { execFileSync, spawn } from "node:child_process"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { startNodeFlags } from "./gateway.ts"
import type { LoadResult, LoadSpec } from "./load.ts"
import {
  atCleanup,
  freePort,
  httpCall,
  isRunning,
  memoryMiB,
  sleep,
  startServerChild,
  stopAll,
  stopChild,
  track
} from "./proc.ts"
import type { Mode } from "./report.ts"
import { requestBody, STREAM_END } from "./sanity.ts"

const repoRoot = fileURLToPath(new URL("..", import.meta.url))
const agentModule = createRequire(join(repoRoot, "package.json")).resolve("undici/lib/dispatcher/agent.js")

/** Both proxies load node:http with `require`, as the gateway's bundle does (an ES import loads more). */
const prelude = `import { createRequire } from "node:module"
const require = createRequire(import.meta.url)
const http = require("node:http")
const [upstreamPort, port] = process.argv.slice(2).map(Number)
`

const proxies: Record<string, string> = {
  "node:http client": `${prelude}
const agent = new http.Agent({ keepAlive: true, maxSockets: 256 })
http.createServer((req, res) => {
  const up = http.request({ host: "127.0.0.1", port: upstreamPort, method: "POST", path: req.url, agent,
    headers: { "content-type": "application/json", "content-length": req.headers["content-length"] } }, (answer) => {
    res.writeHead(answer.statusCode, { "content-type": answer.headers["content-type"] })
    answer.pipe(res)
  })
  up.on("error", () => res.destroy())
  req.pipe(up)
}).listen(port, "127.0.0.1")
`,
  "undici Agent": `${prelude}
const Agent = require(${JSON.stringify(agentModule)})
const agent = new Agent({ keepAliveTimeout: 30000 })
http.createServer((req, res) => {
  const parts = []
  req.on("data", (part) => parts.push(part))
  req.on("end", () => {
    agent.dispatch({ origin: "http://127.0.0.1:" + upstreamPort, path: req.url, method: "POST",
      headers: { "content-type": "application/json" }, body: Buffer.concat(parts) }, {
      onRequestStart() {},
      onResponseStart(_, status, headers) { res.writeHead(status, { "content-type": headers["content-type"] }) },
      onResponseData(_, chunk) { res.write(chunk) },
      onResponseEnd() { res.end() },
      onResponseError() { res.destroy() }
    })
  })
}).listen(port, "127.0.0.1")
`
}

const seconds = Number(process.env["BENCH_SECONDS"] ?? "3")
const modes: ReadonlyArray<Mode> = ["non-stream", "stream"]
const concurrencies = [1, 16, 64]

/** One cell through the bench's load generator, in a process of its own (its CLI mode). */
const load = (port: number, mode: Mode, concurrency: number): LoadResult => {
  const spec: LoadSpec = {
    url: `http://127.0.0.1:${port}/v1/chat/completions`,
    headers: { "content-type": "application/json" },
    body: requestBody("fake-model", mode),
    concurrency,
    warmupSeconds: 0.5,
    seconds,
    maxRequests: 200_000,
    expectBodySuffix: mode === "stream" ? STREAM_END : "}"
  }
  const out = execFileSync(process.execPath, [join(repoRoot, "bench/load.ts"), JSON.stringify(spec)], {
    encoding: "utf8",
    timeout: (seconds + 30) * 1_000
  })
  return JSON.parse(out) as LoadResult
}

const waitListening = async (port: number): Promise<void> => {
  for (let i = 0; i < 100; i++) {
    try {
      await httpCall(`http://127.0.0.1:${port}/`, { method: "POST", body: "{}", timeoutMs: 1_000 })
      return
    } catch {
      await sleep(100)
    }
  }
  throw new Error(`proxy on port ${port} did not answer`)
}

const main = async (): Promise<void> => {
  const dir = mkdtempSync(join(tmpdir(), "svc-gateway-floor-"))
  atCleanup(() => rmSync(dir, { recursive: true, force: true }))
  const upstream = await startServerChild(join(repoRoot, "bench/fake-upstream.ts"), [], repoRoot)
  console.log(`Node flags: ${startNodeFlags().join(" ")}; ${seconds} s per cell`)
  for (const [name, source] of Object.entries(proxies)) {
    const file = join(dir, `${name.replace(/\W+/g, "-")}.mjs`)
    writeFileSync(file, source)
    const port = await freePort()
    const child = track(spawn(process.execPath, [...startNodeFlags(), file, String(upstream.port), String(port)], {
      stdio: ["ignore", "inherit", "inherit"]
    }))
    await waitListening(port)
    const cells: Array<string> = []
    for (const mode of modes) {
      for (const concurrency of concurrencies) {
        const result = load(port, mode, concurrency)
        if (result.errors > 0) {
          throw new Error(`${name}, ${mode} c=${concurrency}: ${result.errors} errors (${result.firstError})`)
        }
        cells.push(`${mode} c=${concurrency} ${result.rps.toFixed(0)} rps`)
      }
    }
    if (!isRunning(child)) throw new Error(`${name} exited during the run`)
    console.log(`${name.padEnd(16)} peak RSS ${memoryMiB(child.pid)} MiB · ${cells.join(" · ")}`)
    await stopChild(child)
  }
}

main().then(
  () => stopAll(),
  async (error: unknown) => {
    console.error(error instanceof Error ? error.message : error)
    await stopAll()
    process.exitCode = 1
  }
)
