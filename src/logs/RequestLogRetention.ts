/**
 * Request-log retention (the audit log's too): rows older than the retention period are deleted a small batch at a time,
 * with a pause between batches, so cleanup never holds many row locks or blocks the writer for long.
 */
import { Clock, Duration, Effect, Schedule } from "effect"
import type { RequestLogStore } from "./RequestLogStore.ts"

const PAUSE = Duration.millis(50)
// bounds one run (10 million rows at the default batch); what is left waits for the next run
const MAX_ROUNDS = 10_000

export interface RetentionSettings {
  /** Zero keeps every row. */
  readonly retention: Duration.Duration
  readonly retentionInterval: Duration.Duration
  readonly retentionBatch: number
}

/** One pass: deletes rows created before now minus the retention; returns how many. */
export const purgeExpired = (
  settings: RetentionSettings,
  store: Pick<RequestLogStore["Service"], "deleteBefore">,
  onDeleted: (rows: number) => void
) =>
  Effect.gen(function*() {
    const retention = Duration.toMillis(settings.retention)
    if (retention <= 0) return 0
    const cutoff = new Date((yield* Clock.currentTimeMillis) - retention)
    let deleted = 0
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const rows = yield* store.deleteBefore(cutoff, settings.retentionBatch)
      deleted += rows
      onDeleted(rows)
      if (rows < settings.retentionBatch) break
      yield* Effect.sleep(PAUSE)
    }
    return deleted
  }).pipe(Effect.withSpan("RequestLog.purge", { root: true }))

/**
 * `purge` every `retentionInterval`, the first time after the interval or a minute, whichever is
 * shorter (not at startup, when the store has other work); a failed run is logged and retried at the
 * next. Runs forever: fork it in a scope.
 */
export const purgeOnSchedule = <E extends { readonly message: string }>(
  settings: RetentionSettings,
  purge: Effect.Effect<number, E>
) =>
  purge.pipe(
    Effect.catch((error) => Effect.logWarning("request log: retention failed; next run later", error.message)),
    Effect.repeat(Schedule.spaced(settings.retentionInterval)),
    Effect.delay(Duration.min(settings.retentionInterval, Duration.minutes(1)))
  )
