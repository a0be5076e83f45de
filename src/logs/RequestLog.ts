/**
 * The request log: one row per request in `request_log`, recorded by the edge and written off the hot
 * path. `record` only queues the row in memory; background fibers write batches (one multi-row
 * `INSERT` each, which skips a row already stored), keep rows through a store outage (in memory up to a
 * bound, then in an append-only spill file replayed when the store is back), flush at shutdown, and
 * delete rows past the retention period. How it works: `RequestLogWriter.ts`.
 *
 * Prompt and completion text are stored as given: the edge passes them only for orgs that opted in.
 *
 * Settings (environment variable, default):
 * - `GATEWAY_REQUEST_LOG` `on`: `off` makes `record` a no-op; nothing is written, replayed or deleted
 * - `GATEWAY_LOG_BATCH_SIZE` `5000` on PostgreSQL, `2000` on the embedded store: rows per INSERT
 *   (`BATCH_SIZES`)
 * - `GATEWAY_LOG_FLUSH_INTERVAL` `200 millis`: longest a row waits for its batch to fill
 * - `GATEWAY_LOG_QUEUE_LIMIT` `50000`: rows kept in memory (queued or retried) before new rows spill
 * - `GATEWAY_LOG_QUEUE_MAX_BYTES` `67108864` (64 MiB): the same bound in approximate bytes; rows on
 *   their way to the spill file may take as much again (past that, if the disk cannot keep up, they
 *   are dropped and counted)
 * - `GATEWAY_LOG_SPILL_FILE` `<GATEWAY_DATA_DIR>/request-log-spill.ndjson`; none when the data folder
 *   is `memory://` (rows past the memory bound are then dropped, and counted)
 * - `GATEWAY_LOG_WRITE_TIMEOUT` `30 seconds`: an INSERT still running then counts as failed, and is
 *   retried (a store that stopped answering is a store that is down)
 * - `GATEWAY_LOG_RETRY_BASE` `100 millis`, `GATEWAY_LOG_RETRY_MAX` `10 seconds`: backoff while the
 *   store fails (doubling, capped)
 * - `GATEWAY_LOG_SHUTDOWN_TIMEOUT` `5 seconds`: bound on the flush at shutdown; the rest is spilled
 * - `GATEWAY_LOG_RETENTION` `30 days`: older rows are deleted; `0 seconds` keeps every row
 * - `GATEWAY_LOG_RETENTION_INTERVAL` `5 minutes`: how often retention runs (first run after a minute)
 * - `GATEWAY_LOG_RETENTION_BATCH` `1000`: rows per DELETE
 */
import { Config, Context, Duration, Effect, Layer, Option } from "effect"
import type { SqlError } from "effect/sql"
import { join } from "node:path"
import { GatewayConfig } from "../Config.ts"
import { RequestLogStore } from "./RequestLogStore.ts"
import { makeWriter, type RequestLogSettings, type RequestLogStats, zeroCounters } from "./RequestLogWriter.ts"
import type { RequestRecord } from "./RequestRecord.ts"

export type { RequestLogSettings, RequestLogStats } from "./RequestLogWriter.ts"

/** The spill file's name in the data folder. */
export const SPILL_FILE_NAME = "request-log-spill.ndjson"

/** The spill file's name for a worker slot of `GATEWAY_WORKERS` (none: the only process). */
export const spillFileName = (slot: Option.Option<number>): string =>
  Option.match(slot, { onNone: () => SPILL_FILE_NAME, onSome: (n) => `request-log-spill.worker-${n}.ndjson` })

const settingsConfig = Config.all({
  mode: Config.Literals(["on", "off"], "GATEWAY_REQUEST_LOG").pipe(Config.withDefault("on" as const)),
  batchSize: Config.Int("GATEWAY_LOG_BATCH_SIZE").pipe(Config.option),
  flushInterval: Config.Duration("GATEWAY_LOG_FLUSH_INTERVAL").pipe(Config.withDefault(Duration.millis(200))),
  queueLimit: Config.Int("GATEWAY_LOG_QUEUE_LIMIT").pipe(Config.withDefault(50_000)),
  queueMaxBytes: Config.Int("GATEWAY_LOG_QUEUE_MAX_BYTES").pipe(Config.withDefault(64 * 1024 * 1024)),
  spillFile: Config.String("GATEWAY_LOG_SPILL_FILE").pipe(Config.option),
  // set by the primary of GATEWAY_WORKERS on each worker it starts
  workerSlot: Config.Int("GATEWAY_WORKER").pipe(Config.option),
  writeTimeout: Config.Duration("GATEWAY_LOG_WRITE_TIMEOUT").pipe(Config.withDefault(Duration.seconds(30))),
  retryBase: Config.Duration("GATEWAY_LOG_RETRY_BASE").pipe(Config.withDefault(Duration.millis(100))),
  retryMax: Config.Duration("GATEWAY_LOG_RETRY_MAX").pipe(Config.withDefault(Duration.seconds(10))),
  shutdownTimeout: Config.Duration("GATEWAY_LOG_SHUTDOWN_TIMEOUT").pipe(Config.withDefault(Duration.seconds(5))),
  retention: Config.Duration("GATEWAY_LOG_RETENTION").pipe(Config.withDefault(Duration.days(30))),
  retentionInterval: Config.Duration("GATEWAY_LOG_RETENTION_INTERVAL").pipe(
    Config.withDefault(Duration.minutes(5))
  ),
  retentionBatch: Config.Int("GATEWAY_LOG_RETENTION_BATCH").pipe(Config.withDefault(1000))
})

/** The settings as the environment gives them: without `GATEWAY_LOG_BATCH_SIZE`, the store's batch size. */
export interface RequestLogEnvSettings extends Omit<RequestLogSettings, "batchSize"> {
  readonly batchSize: Option.Option<number>
}

/** The settings from the environment; the spill file defaults to the gateway's data folder. */
export const loadSettings = Effect.gen(function*() {
  const { dataDir } = yield* GatewayConfig
  const raw = yield* settingsConfig
  const settings: RequestLogEnvSettings = {
    enabled: raw.mode === "on",
    batchSize: Option.map(raw.batchSize, (size) => Math.max(1, size)),
    flushInterval: raw.flushInterval,
    queueLimit: Math.max(1, raw.queueLimit),
    queueMaxBytes: Math.max(1, raw.queueMaxBytes),
    spillFile: Option.getOrElse(
      raw.spillFile,
      // each worker of GATEWAY_WORKERS its own file, kept by the worker that takes its slot after it
      () => dataDir.startsWith("memory://") ? undefined : join(dataDir, spillFileName(raw.workerSlot))
    ),
    writeTimeout: raw.writeTimeout,
    retryBase: raw.retryBase,
    retryMax: raw.retryMax,
    shutdownTimeout: raw.shutdownTimeout,
    retention: raw.retention,
    retentionInterval: raw.retentionInterval,
    retentionBatch: Math.max(1, raw.retentionBatch)
  }
  return settings
})

const NO_STATS: RequestLogStats = { enabled: false, queueDepth: 0, ...zeroCounters() }

export class RequestLog extends Context.Service<RequestLog, {
  /** Queues the row for writing: never fails, never waits on the store (or on disk). */
  readonly record: (record: RequestRecord) => Effect.Effect<void>
  /** Counters for the metrics endpoint. */
  readonly stats: Effect.Effect<RequestLogStats>
  /**
   * One retention pass now (also run on a schedule): deletes rows older than the retention period, a
   * batch at a time; returns how many.
   */
  readonly purgeExpired: Effect.Effect<number, SqlError.SqlError>
}>()("svc-gateway/RequestLog") {
  /** The writer over a `RequestLogStore` of the caller's (tests wrap the store to fail or hang). */
  static readonly layerNoDeps = Layer.effect(
    RequestLog,
    Effect.gen(function*() {
      const settings = yield* loadSettings
      if (!settings.enabled) {
        return RequestLog.of({
          record: () => Effect.void,
          stats: Effect.succeed(NO_STATS),
          purgeExpired: Effect.succeed(0)
        })
      }
      const store = yield* RequestLogStore
      const batchSize = Option.getOrElse(settings.batchSize, () => store.batchSize)
      return RequestLog.of(yield* makeWriter({ ...settings, batchSize }, store))
    })
  )

  /** Needs the migrated `SqlClient` and `GatewayConfig`; closing it flushes the queue. */
  static readonly layer = RequestLog.layerNoDeps.pipe(Layer.provide(RequestLogStore.layer))
}
