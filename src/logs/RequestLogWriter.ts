/**
 * The machinery behind `RequestLog`: a bounded in-memory queue and the background fibers that empty it.
 *
 * - `record` pushes onto `queue` (synchronous, no I/O). Past the memory bound a row goes to `overflow`
 *   instead, which the spiller appends to the spill file.
 * - The writer takes up to `batchSize` rows (or what came within `flushInterval`) and inserts them in
 *   one statement; while the store fails it retries the same batch with capped exponential backoff.
 * - The replayer stores what was spilled (also a file left by a previous run) once the store answers.
 * - Retention (`RequestLogRetention.ts`) deletes old rows in small batches every `retentionInterval`.
 * - At shutdown the writer drains the queue within `shutdownTimeout`; whatever is left in memory then
 *   goes to the spill file.
 *
 * Every recorded row is counted as written, spilled or dropped, or is still in memory (`queueDepth`);
 * a spilled row is counted again as replayed once the store has it. A bug in a loop is logged and the
 * loop restarted, so the log does not stop silently.
 */
import { Cause, Duration, Effect, Fiber, Latch, Option, Result, Semaphore } from "effect"
import { makeDeliver } from "./RequestLogDelivery.ts"
import { purgeExpired, purgeOnSchedule, type RetentionSettings } from "./RequestLogRetention.ts"
import * as Spill from "./RequestLogSpill.ts"
import type { RequestLogStore } from "./RequestLogStore.ts"
import type { RequestRecord } from "./RequestRecord.ts"
import { RowQueue } from "./RowQueue.ts"

export interface RequestLogSettings extends RetentionSettings {
  readonly enabled: boolean
  readonly batchSize: number
  readonly flushInterval: Duration.Duration
  /** Rows kept in memory (queued or being retried) before new ones spill. */
  readonly queueLimit: number
  /**
   * Approximate bytes kept in memory before new rows spill (prompt and completion text add up). Rows
   * on their way to the spill file are bounded by as much again; past that they are dropped.
   */
  readonly queueMaxBytes: number
  /** `undefined`: no spill file; rows past the memory bound are dropped (and counted). */
  readonly spillFile: string | undefined
  /** Longest an INSERT may take before it counts as failed (and is retried). */
  readonly writeTimeout: Duration.Duration
  readonly retryBase: Duration.Duration
  readonly retryMax: Duration.Duration
  readonly shutdownTimeout: Duration.Duration
}

/** Counters for the metrics endpoint; all but `queueDepth` only grow. */
export interface RequestLogStats {
  readonly enabled: boolean
  /** Rows in memory now: queued, being written or retried, or on their way to the spill file. */
  readonly queueDepth: number
  readonly rowsRecorded: number
  /** Rows from memory the store acknowledged. */
  readonly rowsWritten: number
  /** Successful INSERT statements (queue, shutdown flush and replay alike). */
  readonly batchesWritten: number
  /** Failed INSERT statements. */
  readonly writeFailures: number
  readonly rowsSpilled: number
  /** Spilled rows the store acknowledged. */
  readonly rowsReplayed: number
  /** Rows lost: spill file unwritable (or none), a row the store rejected, an unreadable spilled line. */
  readonly rowsDropped: number
  /** Rows removed by retention. */
  readonly rowsDeleted: number
}

const REPLAY_STOPPED = { _tag: "ReplayStopped" } as const
const ROW_OVERHEAD_BYTES = 512
const REPLAY_ROUNDS = 4
const INTERRUPT_WAIT = Duration.seconds(1)

/** Roughly what a row holds in memory: its text dominates (two bytes per UTF-16 unit). */
const rowBytes = (row: RequestRecord): number =>
  ROW_OVERHEAD_BYTES + 2 * ((row.promptText?.length ?? 0) + (row.completionText?.length ?? 0))

const bytesOf = (rows: ReadonlyArray<RequestRecord>): number => {
  let bytes = 0
  for (const row of rows) bytes += rowBytes(row)
  return bytes
}

/** Every counter of `RequestLogStats`, at zero. */
export const zeroCounters = () => ({
  rowsRecorded: 0,
  rowsWritten: 0,
  batchesWritten: 0,
  writeFailures: 0,
  rowsSpilled: 0,
  rowsReplayed: 0,
  rowsDropped: 0,
  rowsDeleted: 0
})

/** Starts the fibers in the current scope; closing the scope flushes (see the module comment). */
export const makeWriter = Effect.fnUntraced(function*(settings: RequestLogSettings, store: RequestLogStore["Service"]) {
  const { batchSize, queueLimit, queueMaxBytes, spillFile } = settings
  const counters = zeroCounters()
  const queue = new RowQueue()
  let queueBytes = 0
  let inFlight: ReadonlyArray<RequestRecord> = []
  let inFlightBytes = 0
  let overflow: Array<RequestRecord> = []
  let overflowBytes = 0
  let spilling: ReadonlyArray<RequestRecord> = [] // taken from overflow, being appended
  let unreportedDrops = 0
  let closing = false // shutdown began: drain, then stop
  let closed = false // shutdown took what was left: a late row is spilled at once
  let spillPending = spillFile !== undefined && Spill.hasSpilled(spillFile)
  let replayProgress = { path: "", lines: 0 }

  const rowsWaiting = Latch.makeUnsafe(false)
  const overflowWaiting = Latch.makeUnsafe(false)
  const spillWaiting = Latch.makeUnsafe(spillPending)
  const stopping = Latch.makeUnsafe(false)
  const fileLock = Semaphore.makeUnsafe(1)

  const drop = (rows: number) => {
    counters.rowsDropped += rows
    unreportedDrops += rows
    overflowWaiting.openUnsafe() // the spiller reports drops
  }

  const spillLate = (row: RequestRecord) => {
    try {
      if (spillFile === undefined) return drop(1)
      Spill.appendRowsSync(spillFile, [row])
      counters.rowsSpilled++
    } catch {
      drop(1)
    }
  }

  const accept = (row: RequestRecord): void => {
    counters.rowsRecorded++
    if (closed) return spillLate(row)
    const bytes = rowBytes(row)
    if (queue.length + inFlight.length >= queueLimit || queueBytes + inFlightBytes >= queueMaxBytes) {
      if (overflowBytes + bytes > queueMaxBytes) return drop(1) // not even the spill file keeps up
      overflow.push(row)
      overflowBytes += bytes
      if (overflow.length === 1) overflowWaiting.openUnsafe()
      return
    }
    queue.push(row) // throws, queuing nothing, on a row that is not a record
    queueBytes += bytes
    if (queue.length === 1 || queue.length >= batchSize) rowsWaiting.openUnsafe()
  }

  const setInFlight = (rows: ReadonlyArray<RequestRecord>) => {
    inFlight = rows
    inFlightBytes = bytesOf(rows)
  }

  const deliver = makeDeliver(store, { writeTimeout: settings.writeTimeout, counters, drop })

  /** Waits out a backoff step; shutdown cuts it short. */
  const backoff = (attempt: number) => {
    const base = Duration.toMillis(settings.retryBase) * 2 ** Math.min(attempt, 30)
    const delay = Math.min(Duration.toMillis(settings.retryMax), base * (0.8 + 0.4 * Math.random()))
    return Effect.raceFirst(Effect.sleep(Duration.millis(delay)), stopping.await)
  }

  /** Until there are rows to write: a full batch, or `flushInterval` after the first row. */
  const awaitRows = Effect.gen(function*() {
    if (queue.length === 0 && !closing) {
      rowsWaiting.closeUnsafe()
      if (queue.length === 0 && !closing) yield* rowsWaiting.await
    }
    if (queue.length < batchSize && !closing) {
      rowsWaiting.closeUnsafe()
      if (queue.length < batchSize && !closing) {
        yield* Effect.raceFirst(rowsWaiting.await, Effect.sleep(settings.flushInterval))
      }
    }
  })

  /** Writes the queue in batches until shutdown; a failed batch is retried until it is stored. */
  const writeQueue = Effect.gen(function*() {
    for (;;) {
      // after a restart the batch in flight comes first
      if (inFlight.length === 0) {
        yield* awaitRows
        if (queue.length === 0) return // shutdown, and nothing left
        // no local for the batch: a generator keeps its locals until they are overwritten, and the
        // batch would wait with the next one's rows, long enough to be promoted
        setInFlight(queue.take(batchSize))
        queueBytes = queue.length === 0 ? 0 : queueBytes - inFlightBytes
      }
      for (let attempt = 0;; attempt++) {
        const result = yield* Effect.result(deliver(inFlight, "queue"))
        if (Result.isSuccess(result)) {
          counters.rowsWritten += result.success
          setInFlight([])
          if (attempt > 0) yield* Effect.logInfo(`request log: store is back after ${attempt} failed attempts`)
          break
        }
        counters.rowsWritten += result.failure.written
        setInFlight(result.failure.remaining)
        if (closing) return // the shutdown spills what is left
        yield* Effect.logWarning(
          `request log: store unavailable (attempt ${attempt + 1}); ${inFlight.length + queue.length} rows kept`,
          result.failure.error.message
        )
        yield* backoff(attempt)
      }
    }
  })

  const reportDrops = Effect.suspend(() => {
    if (unreportedDrops === 0) return Effect.void
    const rows = unreportedDrops
    unreportedDrops = 0
    return Effect.logError(`request log: ${rows} rows dropped (memory bound reached, spill file unavailable)`)
  })

  /** Appends rows to the spill file; rows it cannot take are dropped. */
  const spill = (rows: ReadonlyArray<RequestRecord>, source: string) =>
    Effect.gen(function*() {
      if (spillFile === undefined) {
        drop(rows.length)
        yield* Effect.annotateCurrentSpan("outcome", "dropped")
        return
      }
      const result = yield* Effect.result(fileLock.withPermit(Spill.appendRows(spillFile, rows)))
      if (Result.isSuccess(result)) {
        counters.rowsSpilled += rows.length
        spillPending = true
        spillWaiting.openUnsafe()
        yield* Effect.annotateCurrentSpan("outcome", "spilled")
      } else {
        drop(rows.length)
        yield* Effect.annotateCurrentSpan("outcome", "dropped")
        yield* Effect.logError(result.failure.message)
      }
    }).pipe(Effect.withSpan("RequestLog.flush", { attributes: { rows: rows.length, source }, root: true }))

  /** Moves rows past the memory bound to the spill file as they come. */
  const spillOverflow = Effect.gen(function*() {
    for (;;) {
      yield* reportDrops
      if (overflow.length === 0) {
        if (closing) return
        overflowWaiting.closeUnsafe()
        if (overflow.length === 0 && !closing && unreportedDrops === 0) yield* overflowWaiting.await
        continue
      }
      spilling = overflow
      overflow = []
      overflowBytes = 0
      yield* spill(spilling, "overflow")
      spilling = []
    }
  })

  /** Stores one spill file, a batch at a time, then removes it; a retry resumes after the last batch. */
  const replayFile = (path: string) =>
    Effect.gen(function*() {
      if (replayProgress.path !== path) replayProgress = { path, lines: 0 }
      yield* Spill.forEachBatch(path, {
        size: batchSize,
        skip: replayProgress.lines,
        onBatch: (batch) =>
          Effect.gen(function*() {
            if (closing) return yield* Effect.fail(REPLAY_STOPPED)
            const written = yield* deliver(batch.rows, "spill")
            replayProgress.lines += batch.lines
            counters.rowsReplayed += written
            if (batch.invalid > 0) {
              drop(batch.invalid)
              yield* Effect.logWarning(`request log: ${batch.invalid} unreadable lines in ${path}; skipped`)
            }
          })
      })
      yield* Spill.removeFile(path)
      replayProgress = { path: "", lines: 0 }
    })

  const replayOnce = (path: string) =>
    Effect.gen(function*() {
      for (let round = 0; round < REPLAY_ROUNDS && !closing; round++) {
        const next = yield* fileLock.withPermit(
          Spill.claimForReplay(path).pipe(
            Effect.tap((claimed) =>
              Effect.sync(() => {
                if (claimed === undefined) spillPending = false
              })
            )
          )
        )
        if (next === undefined) return
        yield* replayFile(next)
      }
    })

  /** Stores spilled rows whenever there are some, retrying with backoff while the store is down. */
  const replaySpilled = (path: string) =>
    Effect.gen(function*() {
      for (;;) {
        if (!spillPending || closing) {
          if (closing) return
          spillWaiting.closeUnsafe()
          if (!spillPending && !closing) yield* spillWaiting.await
          continue
        }
        for (let attempt = 0;; attempt++) {
          const result = yield* Effect.result(replayOnce(path))
          if (Result.isSuccess(result) || closing) break
          const error = result.failure
          if (error._tag === "ReplayStopped") break
          const reason = error._tag === "Undelivered" ? error.error.message : error.message
          yield* Effect.logWarning(`request log: replay of ${path} failed (attempt ${attempt + 1})`, reason)
          yield* backoff(attempt)
        }
      }
    })

  const purge = purgeExpired(settings, store, (rows) => {
    counters.rowsDeleted += rows
  })

  const stats = Effect.sync((): RequestLogStats => ({
    enabled: true,
    queueDepth: queue.length + inFlight.length + spilling.length + overflow.length,
    ...counters
  }))

  /** Runs a loop until it ends at shutdown; a defect is logged and the loop started again. */
  const keepRunning = (name: string, loop: Effect.Effect<void>) =>
    loop.pipe(
      Effect.catchCause((cause) =>
        Cause.hasInterruptsOnly(cause) ? Effect.failCause(cause) : Effect.logError(
          `request log: the ${name} failed; restarting`,
          cause
        ).pipe(Effect.andThen(backoff(8)))
      ),
      Effect.repeat({ until: () => closing })
    )

  const fibers = [
    yield* Effect.forkScoped(keepRunning("writer", writeQueue)),
    yield* Effect.forkScoped(keepRunning("spiller", spillOverflow))
  ]
  const replayer = spillFile === undefined
    ? undefined
    : yield* Effect.forkScoped(keepRunning("replayer", replaySpilled(spillFile)))
  const retention = Duration.toMillis(settings.retention) <= 0
    ? undefined
    : yield* Effect.forkScoped(purgeOnSchedule(settings, purge))

  const interrupt = (fiber: Fiber.Fiber<unknown, unknown> | undefined) =>
    fiber === undefined ? Effect.void : Effect.timeoutOption(Fiber.interrupt(fiber), INTERRUPT_WAIT)

  // Added after the fibers, so it runs before the scope interrupts them.
  yield* Effect.addFinalizer(() =>
    Effect.gen(function*() {
      closing = true
      for (const latch of [rowsWaiting, overflowWaiting, spillWaiting, stopping]) latch.openUnsafe()
      yield* Effect.timeoutOption(Fiber.awaitAll(fibers), settings.shutdownTimeout)
      for (const fiber of [...fibers, replayer, retention]) yield* interrupt(fiber)
      closed = true
      // rows a timed-out append may have written in part are spilled again: replays skip duplicates
      const rest = [...inFlight, ...spilling, ...queue.take(queue.length), ...overflow]
      setInFlight([])
      spilling = []
      queueBytes = 0
      overflow = []
      overflowBytes = 0
      if (rest.length > 0) {
        const spilled = yield* Effect.timeoutOption(spill(rest, "shutdown"), settings.shutdownTimeout)
        if (Option.isNone(spilled)) {
          drop(rest.length)
          yield* Effect.logError(`request log: spilling ${rest.length} rows at shutdown timed out`)
        }
      }
      yield* reportDrops
    })
  )

  // never fails the request that records: a row that cannot even be queued is counted
  const record = (row: RequestRecord) =>
    Effect.sync(() => {
      try {
        accept(row)
      } catch {
        drop(1)
      }
    })

  return { record, stats, purgeExpired: purge }
})
