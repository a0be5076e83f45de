/**
 * Feeds the request log's own counters to `/metrics`: its queue depth and dropped rows are read when
 * Prometheus scrapes, so the log pays nothing per row. Build it once, next to `RequestLog` and `Metrics`.
 */
import { Effect, Layer } from "effect"
import { RequestLog } from "../logs/RequestLog.ts"
import { Metrics } from "./Metrics.ts"

export const MetricsLogStatsLive: Layer.Layer<never, never, Metrics | RequestLog> = Layer.effectDiscard(
  Effect.gen(function*() {
    const metrics = yield* Metrics
    const log = yield* RequestLog
    // `stats` is a synchronous read of in-memory counters
    metrics.setLogStats(() => Effect.runSync(log.stats))
  })
)
