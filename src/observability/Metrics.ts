/**
 * The gateway's Prometheus metrics: one `Metrics` service whose recording functions are plain
 * synchronous calls (a map lookup and a few additions, well under a microsecond), and a `render` for
 * `GET /metrics` (see `MetricsRoutes.ts`).
 *
 * What is recorded where:
 * - `observeRequest(record)` once per chat request, with the request-log record (`RequestRecord` fits
 *   as is): request count, duration, time to first token, tokens, and what compression saved.
 * - `providerError(error)` once per failed upstream attempt (failed-over attempts included).
 * - `failover(from, to)` each time the core moves to the next target.
 * - `retry(target)` each time the core calls the same target again after a backoff.
 * - `credentialsRejected(provider)` when a provider refuses the gateway's own credentials (401/403).
 * - `circuit(target, state)` when a target's circuit breaker changes state.
 * - `setLogStats(read)` once, by whoever owns the request log: its queue depth and dropped rows are read
 *   at scrape time, so the log pays nothing per row.
 * - `setMcpSessionStats(read)` once, by the `/mcp` endpoint's session sweep, read at scrape time too.
 *
 * Labels: `model` is the address the client used (`author/model`) once the request was routed to a
 * provider (`none` before that: auth failures, bad bodies, unknown models), `provider` the configured
 * instance name. Both come from configuration; a family keeps at most `maxSeries` label sets (1000 by
 * default) and folds the rest into `other`.
 */
import { Context, Layer } from "effect"
import type { CompressionLevel } from "../kernel/CompressionLevel.ts"
import type { ProviderError } from "../providers/ProviderError.ts"
import { type Counter, type CounterCell, type Histogram, type HistogramCell, Registry } from "./Prometheus.ts"

/** The fields of a request-log record the metrics read; `RequestRecord` satisfies it. */
export interface RequestObservation {
  /** The HTTP status answered (a stream that failed after its headers: the error's status). */
  readonly status: number
  /** The model address as the client sent it; null when the body was never read. */
  readonly requestedModel: string | null
  /** The provider that answered (or failed last); null when no provider was called. */
  readonly provider: string | null
  readonly latencyMs: number
  /** Time to the first streamed content; null when not streamed or nothing came. */
  readonly ttftMs: number | null
  readonly promptTokens: number
  readonly completionTokens: number
  readonly cachedTokens: number
  readonly reasoningTokens: number
  /** The compression level the request ran at; null when refused before one was chosen. */
  readonly compressionLevel: CompressionLevel | null
  /** Prompt tokens compression saved on the wire, raw and priced with cache reads; null: no answer. */
  readonly promptTokensSaved: number | null
  readonly promptTokensSavedNet: number | null
  /** Under `shadow`: what `safe` and `aggressive` would have saved. */
  readonly shadowTokensSavedSafe: number | null
  readonly shadowTokensSavedAggressive: number | null
}

/** The sessions of the gateway's own `/mcp` on this instance. */
export interface McpSessionStats {
  readonly open: number
  /** Ended for being idle since the start; only grows. */
  readonly expired: number
}

/** What the request log reports about itself. */
export interface LogStats {
  /** Rows waiting to be written. */
  readonly queueDepth: number
  /** Rows dropped since the start (the queue was full, or a write failed for good); only grows. */
  readonly rowsDropped: number
}

export interface MetricsShape {
  readonly observeRequest: (request: RequestObservation) => void
  /** One failed upstream attempt; `reason` should come from a small fixed set (see `upstreamErrorReason`). */
  readonly upstreamError: (provider: string, reason: string) => void
  /** `upstreamError` with the provider and reason of a `ProviderError`. */
  readonly providerError: (error: ProviderError) => void
  /** The core moved from one target to the next; model addresses as in `fallbacks`. */
  readonly failover: (from: string, to: string) => void
  /** The core calls the same target again after a backoff. */
  readonly retry: (target: string) => void
  /** A provider refused the gateway's own credentials (401/403). */
  readonly credentialsRejected: (provider: string) => void
  /** A target's circuit changed state. */
  readonly circuit: (target: string, state: CircuitState) => void
  /** A call of a balanced route's target (`provider/model`) came to `outcome`. */
  readonly targetCall: (target: string, outcome: TargetOutcome) => void
  /** A balanced route's request went first to `target`. */
  readonly balancedPick: (route: string, target: string) => void
  /** Where the log's queue depth and dropped rows are read from; the last call wins. */
  readonly setLogStats: (read: () => LogStats) => void
  /** Where the `/mcp` endpoint's session counts are read from; the last call wins. */
  readonly setMcpSessionStats: (read: () => McpSessionStats) => void
  /** Every series in the Prometheus text format 0.0.4. */
  readonly render: () => string
}

export type CircuitState = "closed" | "half_open" | "open"

/** How a call of a balanced target ended: answered, failed, refused with 429, or skipped by its circuit. */
export type TargetOutcome = "ok" | "failed" | "rate_limited" | "skipped"

/** The gauge's value per state: 0 closed, 1 half open (a probe may go), 2 open (skipped). */
const CIRCUIT_VALUES: Record<CircuitState, number> = { closed: 0, half_open: 1, open: 2 }

export interface MetricsOptions {
  /** Distinct label sets kept per family before the rest fold into `other`; default 1000. */
  readonly maxSeries?: number | undefined
}

/** Request durations span cached answers (ms) to long generations (minutes). */
export const DURATION_BUCKETS: ReadonlyArray<number> = [
  0.005,
  0.01,
  0.025,
  0.05,
  0.1,
  0.25,
  0.5,
  1,
  2.5,
  5,
  10,
  20,
  30,
  60,
  120,
  300
]
export const TTFT_BUCKETS: ReadonlyArray<number> = [0.025, 0.05, 0.1, 0.2, 0.35, 0.5, 0.75, 1, 1.5, 2, 3, 5, 10, 30]

/** A short, bounded reason label for a provider failure: `status_503`, `timeout_first_byte`, ... */
export const upstreamErrorReason = (error: ProviderError): string => {
  const reason = error.reason
  switch (reason._tag) {
    case "UpstreamStatus":
      return Number.isInteger(reason.status) && reason.status >= 100 && reason.status < 600
        ? `status_${reason.status}`
        : "status_other"
    case "UpstreamTimeout":
      return `timeout_${reason.phase}`
    case "UpstreamUnreachable":
      return "unreachable"
    case "UpstreamBadResponse":
      return "bad_response"
    case "ProviderUnavailable":
      return "unavailable"
    case "TargetOpen":
      return "circuit_open"
  }
}

const NONE = "none"

const processMetrics = (registry: Registry) => {
  const startSeconds = Math.round(Date.now() / 1000 - process.uptime())
  registry.counterFrom(
    "process_cpu_user_seconds_total",
    "User CPU time spent, in seconds.",
    () => process.cpuUsage().user / 1e6
  )
  registry.counterFrom(
    "process_cpu_system_seconds_total",
    "System CPU time spent, in seconds.",
    () => process.cpuUsage().system / 1e6
  )
  registry.counterFrom("process_cpu_seconds_total", "User and system CPU time spent, in seconds.", () => {
    const { system, user } = process.cpuUsage()
    return (user + system) / 1e6
  })
  registry.gauge("process_resident_memory_bytes", "Resident memory size, in bytes.", () => process.memoryUsage.rss())
  registry.gauge(
    "process_start_time_seconds",
    "Start time of the process since the Unix epoch, in seconds.",
    () => startSeconds
  )
  registry.gauge("nodejs_heap_size_used_bytes", "V8 heap in use, in bytes.", () => process.memoryUsage().heapUsed)
  registry.gauge("nodejs_heap_size_total_bytes", "V8 heap allocated, in bytes.", () => process.memoryUsage().heapTotal)
}

/** A fresh registry with every gateway series; `Metrics.layer` uses it, tests may call it directly. */
export const makeMetrics = (options: MetricsOptions = {}): MetricsShape => {
  const registry = new Registry(options.maxSeries ?? 1000)
  const requests: Counter = registry.counter(
    "svc_gateway_requests_total",
    "Chat completion requests answered, by HTTP status, model address and provider.",
    ["status", "model", "provider"]
  )
  const duration: Histogram = registry.histogram(
    "svc_gateway_request_duration_seconds",
    "Chat completion request duration, from arrival to the last byte, in seconds.",
    ["model", "provider"],
    DURATION_BUCKETS
  )
  const ttft: Histogram = registry.histogram(
    "svc_gateway_ttft_seconds",
    "Time to the first streamed content, in seconds (streamed requests that produced content).",
    ["model", "provider"],
    TTFT_BUCKETS
  )
  const tokens: Counter = registry.counter(
    "svc_gateway_tokens_total",
    "Tokens reported by the providers, by kind (prompt, completion, cached, reasoning) and model address.",
    ["kind", "model"]
  )
  const saved: Counter = registry.counter(
    "svc_gateway_prompt_tokens_saved_total",
    "Prompt tokens (o200k) compression saved on the wire, by level and kind: raw, or net (cache reads priced at a tenth).",
    ["level", "kind"]
  )
  const shadowSaved: Counter = registry.counter(
    "svc_gateway_shadow_tokens_saved_total",
    "Prompt tokens (o200k) each level would have saved on requests that ran at shadow.",
    ["level"]
  )
  const savedCells = new Map<string, readonly [CounterCell, CounterCell]>()
  const shadowCells = [shadowSaved.labels(["safe"]), shadowSaved.labels(["aggressive"])] as const
  const upstreamErrors: Counter = registry.counter(
    "svc_gateway_upstream_errors_total",
    "Failed upstream attempts (failed-over attempts included), by provider and reason.",
    ["provider", "reason"]
  )
  const failovers: Counter = registry.counter(
    "svc_gateway_failovers_total",
    "Moves from one target to the next after a retryable failure, by model address.",
    ["from", "to"]
  )
  const retries: Counter = registry.counter(
    "svc_gateway_upstream_retries_total",
    "Calls of the same target again after a backoff (429, 5xx, 529), by model address.",
    ["target"]
  )
  const credentials: Counter = registry.counter(
    "svc_gateway_upstream_credentials_rejected_total",
    "Upstream answers refusing the gateway's own provider credentials (401/403), by provider.",
    ["provider"]
  )
  const circuits = registry.gaugeSet(
    "svc_gateway_circuit_state",
    "Each target's circuit breaker: 0 closed, 1 half open (one probe goes through), 2 open (skipped).",
    ["target"]
  )
  const targetCalls: Counter = registry.counter(
    "svc_gateway_target_calls_total",
    "Calls of a balanced route's targets (provider/model), by outcome: ok, failed, rate_limited, skipped (circuit open).",
    ["target", "outcome"]
  )
  const balancedPicks: Counter = registry.counter(
    "svc_gateway_balanced_picks_total",
    "Requests of a balanced route by the target tried first (its session's, else drawn by weight).",
    ["route", "target"]
  )
  let readLogStats: (() => LogStats) | undefined
  registry.gauge(
    "svc_gateway_log_queue_depth",
    "Request-log rows waiting to be written.",
    () => readLogStats?.().queueDepth ?? 0
  )
  registry.counterFrom(
    "svc_gateway_log_rows_dropped_total",
    "Request-log rows dropped since the start.",
    () => readLogStats?.().rowsDropped ?? 0
  )
  let readMcpSessions: (() => McpSessionStats) | undefined
  registry.gauge(
    "svc_gateway_mcp_sessions",
    "Sessions of the gateway's own /mcp open on this instance.",
    () => readMcpSessions?.().open ?? 0
  )
  registry.counterFrom(
    "svc_gateway_mcp_sessions_expired_total",
    "Sessions of the gateway's own /mcp ended for being idle (GATEWAY_MCP_SESSION_IDLE) since the start.",
    () => readMcpSessions?.().expired ?? 0
  )
  processMetrics(registry)

  /** The series one (model, provider) pair records into, looked up once: the usual request costs one map lookup. */
  interface TargetCells {
    readonly byStatus: Map<number, CounterCell>
    readonly duration: HistogramCell
    readonly ttft: HistogramCell
    /** Absent for requests that reached no provider: they have no tokens. */
    readonly tokens: readonly [CounterCell, CounterCell, CounterCell, CounterCell] | undefined
  }
  const maxTargets = options.maxSeries ?? 1000
  const targets = new Map<string, TargetCells>()
  const cellsFor = (model: string, provider: string): TargetCells => {
    const key = `${model}\u0000${provider}`
    const found = targets.get(key)
    if (found !== undefined) return found
    const cells: TargetCells = {
      byStatus: new Map(),
      duration: duration.labels([model, provider]),
      ttft: ttft.labels([model, provider]),
      tokens: provider === NONE ? undefined : [
        tokens.labels(["prompt", model]),
        tokens.labels(["completion", model]),
        tokens.labels(["cached", model]),
        tokens.labels(["reasoning", model])
      ]
    }
    // past the cap the families fold new pairs into `other` anyway; stop caching them
    if (targets.size < maxTargets) targets.set(key, cells)
    return cells
  }

  const observeCompression = (request: RequestObservation): void => {
    const level = request.compressionLevel
    if (level === null || request.promptTokensSaved === null) return
    if (level === "shadow") {
      shadowCells[0].inc(request.shadowTokensSavedSafe ?? 0)
      shadowCells[1].inc(request.shadowTokensSavedAggressive ?? 0)
      return
    }
    let cells = savedCells.get(level)
    if (cells === undefined) {
      cells = [saved.labels([level, "raw"]), saved.labels([level, "net"])]
      savedCells.set(level, cells)
    }
    // a text can count more tokens compressed than not (rare): the counters only grow
    cells[0].inc(Math.max(0, request.promptTokensSaved))
    cells[1].inc(Math.max(0, request.promptTokensSavedNet ?? 0))
  }

  const observeRequest = (request: RequestObservation): void => {
    const provider = request.provider ?? NONE
    const model = request.provider === null ? NONE : request.requestedModel ?? NONE
    const cells = cellsFor(model, provider)
    let counter = cells.byStatus.get(request.status)
    if (counter === undefined) {
      counter = requests.labels([String(request.status), model, provider])
      cells.byStatus.set(request.status, counter)
    }
    counter.inc()
    cells.duration.observe(request.latencyMs / 1000)
    if (request.ttftMs !== null) cells.ttft.observe(request.ttftMs / 1000)
    // every kind, zeros included, so each model's series exist from its first request on
    if (cells.tokens === undefined) return
    cells.tokens[0].inc(request.promptTokens)
    cells.tokens[1].inc(request.completionTokens)
    cells.tokens[2].inc(request.cachedTokens)
    cells.tokens[3].inc(request.reasoningTokens)
    observeCompression(request)
  }

  const upstreamError = (provider: string, reason: string): void => upstreamErrors.inc([provider, reason])

  return {
    observeRequest,
    upstreamError,
    providerError: (error) => upstreamError(error.provider, upstreamErrorReason(error)),
    failover: (from, to) => failovers.inc([from, to]),
    retry: (target) => retries.inc([target]),
    credentialsRejected: (provider) => credentials.inc([provider]),
    circuit: (target, state) => circuits.set([target], CIRCUIT_VALUES[state]),
    targetCall: (target, outcome) => targetCalls.inc([target, outcome]),
    balancedPick: (route, target) => balancedPicks.inc([route, target]),
    setLogStats: (read) => {
      readLogStats = read
    },
    setMcpSessionStats: (read) => {
      readMcpSessions = read
    },
    render: () => registry.render()
  }
}

export class Metrics extends Context.Service<Metrics, MetricsShape>()("svc-gateway/Metrics") {
  /** A fresh registry per layer build: one per process in production, one per test gateway. */
  static readonly layer: Layer.Layer<Metrics> = Layer.sync(Metrics, () => makeMetrics())

  static readonly layerWith = (options: MetricsOptions): Layer.Layer<Metrics> =>
    Layer.sync(Metrics, () => makeMetrics(options))
}
