/** The request log's counters reach `/metrics` through `MetricsLogStatsLive`, read at scrape time. */
import { Effect, Layer } from "effect"
import { describe, expect, it } from "vitest"
import { RequestLog, type RequestLogStats } from "../../src/logs/RequestLog.ts"
import { MetricsLogStatsLive } from "../../src/observability/LogStatsSource.ts"
import { Metrics } from "../../src/observability/Metrics.ts"
import { parsePrometheus, sampleValue } from "./PromText.ts"

describe("MetricsLogStatsLive", () => {
  it("reports the log's queue depth and dropped rows as they are when scraped", async () => {
    let stats: RequestLogStats = {
      enabled: true,
      queueDepth: 4,
      rowsRecorded: 10,
      rowsWritten: 5,
      batchesWritten: 1,
      writeFailures: 0,
      rowsSpilled: 0,
      rowsReplayed: 0,
      rowsDropped: 1,
      rowsDeleted: 0
    }
    const log = Layer.succeed(
      RequestLog,
      RequestLog.of({
        record: () => Effect.void,
        stats: Effect.sync(() => stats),
        purgeExpired: Effect.succeed(0)
      })
    )
    const read = await Effect.runPromise(
      Effect.gen(function*() {
        const metrics = yield* Metrics
        const first = parsePrometheus(metrics.render())
        stats = { ...stats, queueDepth: 0, rowsDropped: 3 }
        const second = parsePrometheus(metrics.render())
        return [first, second].map((f) => [
          sampleValue(f, "svc_gateway_log_queue_depth"),
          sampleValue(f, "svc_gateway_log_rows_dropped_total")
        ])
      }).pipe(Effect.provide(MetricsLogStatsLive.pipe(Layer.provideMerge(Metrics.layer), Layer.provide(log))))
    )
    expect(read).toEqual([[4, 1], [0, 3]])
  })
})
