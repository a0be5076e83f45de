/**
 * Getting one batch of request-log rows into the store: one INSERT per batch, traced as
 * `RequestLog.flush`, bounded in time. A batch the store refuses for its content is split until the
 * offending rows stand alone, so one bad row costs only itself; any other failure hands the rows back
 * to be retried.
 */
import { Duration, Effect, Result } from "effect"
import { SqlError } from "effect/sql"
import { isRejectedRow, type RequestLogStore } from "./RequestLogStore.ts"
import type { RequestRecord } from "./RequestRecord.ts"

/** The rows of a batch the store did not take (the store is unavailable), and why. */
export interface Undelivered {
  readonly _tag: "Undelivered"
  readonly remaining: ReadonlyArray<RequestRecord>
  /** Rows of the batch stored before the failure. */
  readonly written: number
  readonly error: SqlError.SqlError
}

/** The counters delivery moves (the writer's, shared). */
export interface DeliveryCounters {
  batchesWritten: number
  writeFailures: number
}

/** A store that stopped answering is treated as one that is down. */
const writeTimedOut = (timeout: Duration.Duration) =>
  new SqlError.SqlError({
    reason: new SqlError.ConnectionError({
      cause: new Error("request log insert timed out"),
      message: `request log insert took longer than ${Duration.format(timeout)}`,
      operation: "insert"
    })
  })

/**
 * `deliver(rows, source)` stores the rows and returns how many it wrote; rows the store rejects one
 * by one are passed to `drop`. Fails with what is left when the store is unavailable.
 */
export const makeDeliver = (
  store: RequestLogStore["Service"],
  { counters, drop, writeTimeout }: {
    /** Longest an INSERT may take before it counts as failed. */
    readonly writeTimeout: Duration.Duration
    readonly counters: DeliveryCounters
    /** Counts rows the store rejected one by one. */
    readonly drop: (rows: number) => void
  }
) => {
  const insert = (rows: ReadonlyArray<RequestRecord>, source: string) =>
    store.insert(rows).pipe(
      Effect.timeoutOrElse({ duration: writeTimeout, orElse: () => Effect.fail(writeTimedOut(writeTimeout)) }),
      Effect.tap(() => Effect.annotateCurrentSpan("outcome", "written")),
      Effect.tapError((error) => Effect.annotateCurrentSpan({ outcome: "failed", error: error.reason._tag })),
      Effect.withSpan("RequestLog.flush", { attributes: { rows: rows.length, source }, root: true })
    )

  // made once: a generator function made per batch would keep each batch alive until a full collection
  const deliver: (rows: ReadonlyArray<RequestRecord>, source: string) => Effect.Effect<number, Undelivered> = Effect
    .fnUntraced(function*(rows: ReadonlyArray<RequestRecord>, source: string) {
      const pending: Array<ReadonlyArray<RequestRecord>> = rows.length === 0 ? [] : [rows]
      let written = 0
      // bounded: each chunk is written, dropped, or split into two smaller ones
      while (pending.length > 0) {
        const chunk = pending.pop()!
        const result = yield* Effect.result(insert(chunk, source))
        if (Result.isSuccess(result)) {
          written += chunk.length
          counters.batchesWritten++
          continue
        }
        counters.writeFailures++
        const error = result.failure
        if (!isRejectedRow(error)) {
          const remaining = [chunk, ...pending.toReversed()].flat()
          return yield* Effect.fail<Undelivered>({ _tag: "Undelivered", remaining, written, error })
        }
        if (chunk.length === 1) {
          drop(1)
          yield* Effect.logError("request log: the store rejected a row; dropped", chunk[0]!.id, error.message)
          continue
        }
        const half = Math.ceil(chunk.length / 2)
        pending.push(chunk.slice(half), chunk.slice(0, half))
      }
      return written
    })
  return deliver
}
