/**
 * Benchmark load generator, meant to run in its own process so it never shares an event loop with the
 * servers it measures. It keeps `concurrency` requests in flight over a keep-alive agent
 * (maxSockets = concurrency): first a warm-up, then a measured window bounded by time and by a request
 * count. Per request it records total latency and time to first body byte (TTFB).
 * As a child of bench/run.ts it takes `{ type: "run", id, spec }` messages over IPC and answers
 * `{ type: "result", id, result }` with the raw samples (`LoadRun`; `summarize` merges rounds);
 * by hand: `node bench/load.ts '<LoadSpec as JSON>'` prints the summary.
 */
import http from "node:http"
import { performance } from "node:perf_hooks"
import { pathToFileURL } from "node:url"

export interface LoadSpec {
  readonly url: string
  readonly method?: string
  readonly headers: Readonly<Record<string, string>>
  readonly body: string
  readonly concurrency: number
  readonly warmupSeconds: number
  readonly seconds: number
  /** Most requests measured (and most warm-up requests); the window ends early when reached. */
  readonly maxRequests: number
  /** When set, a 2xx response whose body does not end with this text counts as an error. */
  readonly expectBodySuffix?: string
  /**
   * When set, a 2xx response whose last server-sent event is not this one (its `event:` name) counts as
   * an error: for formats whose streams end with an event whose data varies (the Responses API's
   * `response.completed` carries the response's id).
   */
  readonly expectLastEvent?: string
  /** Longest a single request may take before it is abandoned and counted as an error. */
  readonly requestTimeoutMs?: number
}

export interface LoadResult {
  readonly requests: number
  readonly errors: number
  readonly firstError: string | null
  readonly seconds: number
  readonly rps: number
  readonly latencyP50Ms: number
  readonly latencyP99Ms: number
  readonly latencyMeanMs: number
  readonly ttfbP50Ms: number
  readonly ttfbP99Ms: number
  readonly warmupRequests: number
}

interface Outcome {
  readonly latencyMs: number
  readonly ttfbMs: number
  readonly error: string | null
}

const TAIL_BYTES = 64
/** Enough for a last event that carries a whole small answer (`response.completed`). */
const EVENT_TAIL_BYTES = 4096

/** The name of the last whole event in `tail`, if its header is in it. */
const lastEventName = (tail: string): string | undefined => {
  const events = tail.split("\n\n").filter((event) => event !== "")
  const last = events[events.length - 1]
  return last?.startsWith("event: ") ? last.slice(7, last.indexOf("\n")) : undefined
}

/** One request; never rejects: failures come back as an `error` message. */
const oneRequest = (
  agent: http.Agent,
  url: URL,
  method: string,
  headers: http.OutgoingHttpHeaders,
  body: Buffer,
  spec: LoadSpec
): Promise<Outcome> =>
  new Promise((resolve) => {
    const start = performance.now()
    let ttfb = -1
    let settled = false
    const finish = (error: string | null): void => {
      if (settled) return
      settled = true
      const latencyMs = performance.now() - start
      resolve({ latencyMs, ttfbMs: ttfb < 0 ? latencyMs : ttfb, error })
    }
    const req = http.request(
      { host: url.hostname, port: url.port, path: url.pathname + url.search, method, headers, agent },
      (res) => {
        const status = res.statusCode ?? 0
        const ok = status >= 200 && status < 300
        let tail: Buffer = Buffer.alloc(0)
        res.on("data", (chunk: Buffer) => {
          if (ttfb < 0) ttfb = performance.now() - start
          if (!ok || spec.expectBodySuffix !== undefined || spec.expectLastEvent !== undefined) {
            const limit = ok ? (spec.expectLastEvent === undefined ? TAIL_BYTES : EVENT_TAIL_BYTES) : 512
            tail = ok
              ? (chunk.length >= limit
                ? chunk.subarray(chunk.length - limit)
                : Buffer.concat([tail, chunk]).subarray(-limit))
              : (tail.length >= limit ? tail : Buffer.concat([tail, chunk]).subarray(0, limit))
          }
        })
        res.on("error", (error) => finish(`response error: ${error.message}`))
        res.on("end", () => {
          if (!ok) return finish(`HTTP ${status}: ${tail.toString("utf8")}`)
          if (spec.expectBodySuffix !== undefined && !tail.toString("utf8").endsWith(spec.expectBodySuffix)) {
            return finish(
              `HTTP ${status} body does not end with ${JSON.stringify(spec.expectBodySuffix)}: ...${
                JSON.stringify(tail.toString("utf8"))
              }`
            )
          }
          if (spec.expectLastEvent !== undefined && lastEventName(tail.toString("utf8")) !== spec.expectLastEvent) {
            return finish(
              `HTTP ${status} stream does not end with the event ${spec.expectLastEvent}: ...${
                JSON.stringify(tail.toString("utf8").slice(-200))
              }`
            )
          }
          finish(null)
        })
      }
    )
    req.setTimeout(spec.requestTimeoutMs ?? 30_000, () => req.destroy(new Error("request timed out")))
    req.on("error", (error) => finish(`socket error: ${error.message}`))
    req.end(body)
  })

const percentile = (sorted: Float64Array, q: number): number => {
  if (sorted.length === 0) return Number.NaN
  const rank = Math.ceil(q * sorted.length) - 1
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank))] ?? Number.NaN
}

const round = (value: number, digits = 3): number => {
  const factor = 10 ** digits
  return Math.round(value * factor) / factor
}

/** What one measured window produced, before summarising: the raw per-request samples (ms). */
export interface LoadRun {
  readonly latencies: Float64Array
  readonly ttfbs: Float64Array
  readonly errors: number
  readonly firstError: string | null
  readonly seconds: number
  readonly warmupRequests: number
}

const concat = (arrays: ReadonlyArray<Float64Array>): Float64Array => {
  const out = new Float64Array(arrays.reduce((n, a) => n + a.length, 0))
  let offset = 0
  for (const a of arrays) {
    out.set(a, offset)
    offset += a.length
  }
  return out
}

/** One summary over several windows (rounds) of the same cell: counts add up, percentiles use all samples. */
export const summarize = (runs: ReadonlyArray<LoadRun>): LoadResult => {
  const lat = concat(runs.map((r) => r.latencies)).sort()
  const tt = concat(runs.map((r) => r.ttfbs)).sort()
  const seconds = runs.reduce((n, r) => n + r.seconds, 0)
  let sum = 0
  for (const value of lat) sum += value
  return {
    requests: lat.length,
    errors: runs.reduce((n, r) => n + r.errors, 0),
    firstError: runs.find((r) => r.firstError !== null)?.firstError ?? null,
    seconds: round(seconds),
    rps: seconds > 0 ? round(lat.length / seconds, 1) : 0,
    latencyP50Ms: round(percentile(lat, 0.5)),
    latencyP99Ms: round(percentile(lat, 0.99)),
    latencyMeanMs: lat.length > 0 ? round(sum / lat.length) : Number.NaN,
    ttfbP50Ms: round(percentile(tt, 0.5)),
    ttfbP99Ms: round(percentile(tt, 0.99)),
    warmupRequests: runs.reduce((n, r) => n + r.warmupRequests, 0)
  }
}

export const runLoad = async (spec: LoadSpec): Promise<LoadRun> => {
  const concurrency = Math.max(1, Math.floor(spec.concurrency))
  const maxRequests = Math.max(1, Math.floor(spec.maxRequests))
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency, maxFreeSockets: concurrency })
  const url = new URL(spec.url)
  const body = Buffer.from(spec.body)
  const method = spec.method ?? "POST"
  const headers: http.OutgoingHttpHeaders = {
    "content-type": "application/json",
    ...spec.headers,
    "content-length": String(body.length)
  }

  const latencies = new Float64Array(maxRequests)
  const ttfbs = new Float64Array(maxRequests)
  let phase: "warmup" | "measure" | "stop" = "warmup"
  let measured = 0
  let warmupRequests = 0
  let errors = 0
  let firstError: string | null = null
  let measureStart = 0
  let measureEnd = 0

  const stop = (): void => {
    if (phase === "stop") return
    if (phase === "measure") measureEnd = performance.now()
    phase = "stop"
  }
  let stopTimer: NodeJS.Timeout | undefined
  const beginMeasure = (): void => {
    if (phase !== "warmup") return
    phase = "measure"
    measureStart = performance.now()
    stopTimer = setTimeout(stop, Math.max(0, spec.seconds) * 1_000)
  }
  const warmupTimer = setTimeout(beginMeasure, Math.max(0, spec.warmupSeconds) * 1_000)

  const worker = async (): Promise<void> => {
    while (phase !== "stop") {
      const outcome = await oneRequest(agent, url, method, headers, body, spec)
      if (phase === "warmup") {
        warmupRequests += 1
        if (warmupRequests >= maxRequests) beginMeasure()
        continue
      }
      if (phase !== "measure") continue
      if (outcome.error !== null) {
        errors += 1
        if (firstError === null) firstError = outcome.error
      } else {
        latencies[measured] = outcome.latencyMs
        ttfbs[measured] = outcome.ttfbMs
        measured += 1
      }
      if (measured + errors >= maxRequests) stop()
    }
  }

  try {
    await Promise.all(Array.from({ length: concurrency }, () => worker()))
  } finally {
    clearTimeout(warmupTimer)
    if (stopTimer !== undefined) clearTimeout(stopTimer)
    agent.destroy()
  }

  return {
    latencies: latencies.slice(0, measured),
    ttfbs: ttfbs.slice(0, measured),
    errors,
    firstError,
    seconds: (measureEnd - measureStart) / 1_000,
    warmupRequests
  }
}

type ParentMessage = { readonly type: "run"; readonly id: number; readonly spec: LoadSpec }

const isRunMessage = (message: unknown): message is ParentMessage =>
  typeof message === "object" && message !== null && "type" in message && message.type === "run"

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const send = process.send?.bind(process)
  if (send === undefined) {
    const spec = JSON.parse(process.argv[2] ?? "{}") as LoadSpec
    runLoad(spec).then(
      (run) => console.log(JSON.stringify(summarize([run]), null, 2)),
      (error: unknown) => {
        console.error(error)
        process.exitCode = 1
      }
    )
  } else {
    process.on("message", (message: unknown) => {
      if (!isRunMessage(message)) return
      runLoad(message.spec).then(
        (result) => send({ type: "result", id: message.id, result }),
        (error: unknown) => send({ type: "failed", id: message.id, message: String(error) })
      )
    })
    process.once("disconnect", () => process.exit(0))
    setTimeout(() => process.exit(0), 900_000).unref()
  }
}
