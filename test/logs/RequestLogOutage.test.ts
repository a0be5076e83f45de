/**
 * The request log through store outages: batches are retried and every row arrives exactly once; past
 * the memory bound rows go to the spill file and are replayed once the store is back; a spill file left
 * by a previous run is replayed at start; rows that cannot be kept anywhere, or that the store rejects,
 * are counted as dropped.
 */
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { randomBytes } from "node:crypto"
import { existsSync, mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import type { RequestLog } from "../../src/logs/RequestLog.ts"
import { appendRows, replayPathOf } from "../../src/logs/RequestLogSpill.ts"
import type { RequestRecord } from "../../src/logs/RequestRecord.ts"
import {
  countOf,
  eventually,
  logEnv,
  makeRecord,
  makeRecords,
  recorder,
  rowsOf,
  spilledLines,
  storeControl,
  tempSpillFile,
  withRequestLog
} from "../utils/RequestLogHarness.ts"
import { StoreLive, unique } from "../utils/TestStore.ts"

const recordAll = (log: RequestLog["Service"], rows: ReadonlyArray<RequestRecord>) =>
  Effect.forEach(rows, (row) => log.record(row), { discard: true })

const idsOf = (rows: ReadonlyArray<RequestRecord>) => rows.map((row) => row.id)

/** How often each id was sent to the store (retries included). */
const sendCounts = (inserts: ReadonlyArray<ReadonlyArray<string>>) => {
  const counts = new Map<string, number>()
  for (const id of inserts.flat()) counts.set(id, (counts.get(id) ?? 0) + 1)
  return counts
}

layer(StoreLive, { excludeTestServices: true })("RequestLog outages", (it) => {
  it.effect("a store outage: batches are retried with backoff and every row arrives exactly once", () =>
    Effect.gen(function*() {
      const control = storeControl()
      control.mode = "down"
      const recorded = recorder()
      const rows = makeRecords(50)
      const { log } = yield* withRequestLog(logEnv({ GATEWAY_LOG_BATCH_SIZE: "20" }), (log) =>
        Effect.gen(function*() {
          yield* recordAll(log, rows)
          yield* eventually("three failed attempts", Effect.map(log.stats, (s) => s.writeFailures >= 3))
          assert.deepInclude(yield* log.stats, { rowsWritten: 0, queueDepth: 50 })
          // the reply to a stored batch is lost once: the batch is sent again and skipped
          control.mode = "lose-ack"
          yield* eventually("a lost reply", Effect.map(countOf(idsOf(rows)), (n) => n > 0))
          control.mode = "up"
          yield* eventually("50 rows stored", Effect.map(log.stats, (s) => s.rowsWritten === 50))
        }), { store: control, recorder: recorded })
      const stored = yield* rowsOf(idsOf(rows))
      assert.deepStrictEqual(stored.map((row) => row.id), idsOf(rows).sort())
      // the batch caught by the outage was sent again and again; every row was sent
      const sent = sendCounts(control.inserts)
      assert.isTrue(control.inserts[0]!.every((id) => (sent.get(id) ?? 0) >= 4), "the first batch was retried")
      assert.isTrue(idsOf(rows).every((id) => sent.has(id)))
      const stats = yield* log.stats
      assert.deepInclude(stats, { rowsRecorded: 50, rowsWritten: 50, rowsSpilled: 0, rowsDropped: 0, queueDepth: 0 })
      assert.isAtLeast(stats.writeFailures, 4)
      const outcomes = recorded.spans.filter((span) => span.name === "RequestLog.flush")
        .map((span) => span.attributes.get("outcome"))
      assert.includeMembers(outcomes, ["failed", "written"])
    }))

  it.effect("an insert that hangs times out and is retried once the store answers again", () =>
    Effect.gen(function*() {
      const control = storeControl()
      control.mode = "hang"
      const rows = makeRecords(10)
      const { log } = yield* withRequestLog(logEnv({ GATEWAY_LOG_WRITE_TIMEOUT: "50 millis" }), (log) =>
        Effect.gen(function*() {
          yield* recordAll(log, rows)
          yield* eventually(
            "two timed-out attempts",
            Effect.map(log.stats, (s) =>
              s.writeFailures >= 2)
          )
          control.mode = "up"
          yield* eventually("10 rows stored", Effect.map(log.stats, (s) => s.rowsWritten === 10))
        }), { store: control })
      assert.strictEqual(yield* countOf(idsOf(rows)), 10)
      assert.deepInclude(yield* log.stats, { rowsSpilled: 0, rowsDropped: 0, queueDepth: 0 })
    }))

  it.effect("a bug that crashes the writer is logged and the writer restarts with its batch", () =>
    Effect.gen(function*() {
      const control = storeControl()
      control.mode = "crash"
      const rows = makeRecords(10)
      const { log } = yield* withRequestLog(logEnv(), (log) =>
        Effect.gen(function*() {
          yield* recordAll(log, rows)
          yield* eventually("a crash", Effect.sync(() => control.inserts.length > 0))
          control.mode = "up"
          yield* eventually("10 rows stored", Effect.map(log.stats, (s) => s.rowsWritten === 10))
        }), { store: control })
      assert.strictEqual(yield* countOf(idsOf(rows)), 10)
      assert.deepInclude(yield* log.stats, { rowsDropped: 0, queueDepth: 0 })
    }))

  it.effect("record never fails; a row that is not a record is dropped alone, not retried forever", () =>
    Effect.gen(function*() {
      const good = makeRecords(3)
      const broken = { ...makeRecord(), createdAt: "yesterday" } as unknown as RequestRecord
      const { log } = yield* withRequestLog(
        logEnv({ GATEWAY_LOG_BATCH_SIZE: "10" }),
        (log) => recordAll(log, [null as unknown as RequestRecord, good[0]!, broken, ...good.slice(1)])
      )
      assert.strictEqual(yield* countOf(idsOf(good)), 3)
      assert.deepInclude(yield* log.stats, { rowsRecorded: 5, rowsDropped: 2, rowsWritten: 3, queueDepth: 0 })
    }))

  it.effect("past the memory bound rows spill to the file and are replayed once the store is back", () =>
    Effect.gen(function*() {
      const control = storeControl()
      control.mode = "down"
      const spillFile = tempSpillFile()
      const rows = makeRecords(40)
      const env = logEnv({
        GATEWAY_LOG_QUEUE_LIMIT: "10",
        GATEWAY_LOG_BATCH_SIZE: "5",
        GATEWAY_LOG_SPILL_FILE: spillFile
      })
      const { log } = yield* withRequestLog(env, (log) =>
        Effect.gen(function*() {
          yield* recordAll(log, rows)
          yield* eventually("30 rows spilled", Effect.map(log.stats, (s) => s.rowsSpilled === 30))
          assert.strictEqual(spilledLines(spillFile).length, 30)
          assert.strictEqual((yield* log.stats).queueDepth, 10)
          control.mode = "up"
          const gone = () => !existsSync(spillFile) && !existsSync(replayPathOf(spillFile))
          yield* eventually("all stored, no spill file", Effect.map(countOf(idsOf(rows)), (n) => n === 40 && gone()))
        }), { store: control })
      assert.strictEqual(yield* countOf(idsOf(rows)), 40)
      assert.deepInclude(yield* log.stats, {
        rowsRecorded: 40,
        rowsWritten: 10,
        rowsSpilled: 30,
        rowsReplayed: 30,
        rowsDropped: 0,
        queueDepth: 0
      })
    }))

  it.effect("a spill file left by a previous run is replayed at start; unreadable lines are counted", () =>
    Effect.gen(function*() {
      const spillFile = tempSpillFile()
      const earlier = makeRecords(7, { promptText: "kept across restarts" })
      const unfinished = makeRecords(3)
      yield* appendRows(spillFile, earlier)
      // a crash mid-replay left the renamed file, and a crash mid-write a cut-off line
      yield* appendRows(replayPathOf(spillFile), unfinished)
      writeFileSync(replayPathOf(spillFile), "{\"id\": \"cut-off\n\n", { flag: "a" })
      const { log } = yield* withRequestLog(
        logEnv({ GATEWAY_LOG_SPILL_FILE: spillFile }),
        (log) =>
          eventually(
            "replayed and removed",
            Effect.map(
              log.stats,
              (s) => s.rowsReplayed === 10 && !existsSync(spillFile) && !existsSync(replayPathOf(spillFile))
            )
          )
      )
      const stored = yield* rowsOf(idsOf([...earlier, ...unfinished]))
      assert.strictEqual(stored.length, 10)
      assert.strictEqual(stored.find((row) => row.id === earlier[0]!.id)?.prompt_text, "kept across restarts")
      assert.isFalse(existsSync(spillFile))
      assert.isFalse(existsSync(replayPathOf(spillFile)))
      assert.deepInclude(yield* log.stats, { rowsReplayed: 10, rowsDropped: 1, rowsWritten: 0, rowsRecorded: 0 })
    }))

  it.effect("a spilled line from before sessions were logged is stored with no session", () =>
    Effect.gen(function*() {
      const spillFile = tempSpillFile()
      const { sessionId: _, ...before } = makeRecord()
      const current = makeRecord({ sessionId: "0b3c9a52-5f5e-4d6c-9a1e-2f7f3e0c1d2a" })
      writeFileSync(spillFile, `${JSON.stringify(before)}\n`)
      yield* appendRows(spillFile, [current])
      const { log } = yield* withRequestLog(logEnv({ GATEWAY_LOG_SPILL_FILE: spillFile }), (log) =>
        eventually("replayed", Effect.map(log.stats, (s) => s.rowsReplayed === 2)))
      const sessions = new Map((yield* rowsOf([before.id, current.id])).map((row) => [row.id, row.session_id]))
      assert.strictEqual(sessions.size, 2)
      assert.isNull(sessions.get(before.id))
      assert.strictEqual(sessions.get(current.id), current.sessionId)
      assert.deepInclude(yield* log.stats, { rowsReplayed: 2, rowsDropped: 0 })
    }))

  it.effect("replaying rows the store already has stores each once", () =>
    Effect.gen(function*() {
      const spillFile = tempSpillFile()
      const rows = makeRecords(6)
      yield* withRequestLog(logEnv(), (log) => recordAll(log, rows.slice(0, 4)))
      yield* appendRows(spillFile, [...rows, ...rows])
      yield* withRequestLog(logEnv({ GATEWAY_LOG_SPILL_FILE: spillFile }), (log) =>
        eventually("replayed", Effect.map(log.stats, (s) => s.rowsReplayed === 12)))
      assert.deepStrictEqual(
        (yield* rowsOf(idsOf(rows))).map((row) =>
          row.id
        ),
        idsOf(rows).sort()
      )
    }))

  it.effect("shutdown while the store is down spills the queue; the next start stores it", () =>
    Effect.gen(function*() {
      const control = storeControl()
      control.mode = "down"
      const spillFile = tempSpillFile()
      const rows = makeRecords(25)
      const env = logEnv({ GATEWAY_LOG_SPILL_FILE: spillFile, GATEWAY_LOG_BATCH_SIZE: "10" })
      const { log } = yield* withRequestLog(env, (log) =>
        recordAll(log, rows).pipe(
          Effect.andThen(eventually("a failed attempt", Effect.map(log.stats, (s) => s.writeFailures > 0)))
        ), { store: control })
      assert.deepInclude(yield* log.stats, { rowsWritten: 0, rowsSpilled: 25, queueDepth: 0, rowsDropped: 0 })
      assert.strictEqual(spilledLines(spillFile).length, 25)
      yield* withRequestLog(env, (log) => eventually("replayed", Effect.map(log.stats, (s) => s.rowsReplayed === 25)))
      assert.strictEqual(yield* countOf(idsOf(rows)), 25)
    }))

  it.effect("without a spill file, rows past the memory bound are dropped and counted", () =>
    Effect.gen(function*() {
      const control = storeControl()
      control.mode = "down"
      const rows = makeRecords(12)
      const { log } = yield* withRequestLog(logEnv({ GATEWAY_LOG_QUEUE_LIMIT: "5" }), (log) =>
        Effect.gen(function*() {
          yield* recordAll(log, rows)
          yield* eventually("7 dropped", Effect.map(log.stats, (s) => s.rowsDropped === 7))
          control.mode = "up"
          yield* eventually("5 written", Effect.map(log.stats, (s) => s.rowsWritten === 5))
        }), { store: control })
      assert.strictEqual(yield* countOf(idsOf(rows)), 5)
      assert.deepInclude(yield* log.stats, { rowsRecorded: 12, rowsSpilled: 0, rowsDropped: 7, queueDepth: 0 })
    }))

  it.effect("a spill file that cannot be written: the rows are counted as dropped", () =>
    Effect.gen(function*() {
      const control = storeControl()
      control.mode = "down"
      const blocker = tempSpillFile()
      mkdirSync(blocker) // the spill file's folder would have to be inside a file
      writeFileSync(join(blocker, "file"), "")
      const rows = makeRecords(8)
      const unwritable = join(blocker, "file", "spill.ndjson")
      const env = logEnv({ GATEWAY_LOG_QUEUE_LIMIT: "3", GATEWAY_LOG_SPILL_FILE: unwritable })
      const { log } = yield* withRequestLog(env, (log) =>
        Effect.gen(function*() {
          yield* recordAll(log, rows)
          yield* eventually("5 dropped", Effect.map(log.stats, (s) => s.rowsDropped === 5))
          control.mode = "up"
        }), { store: control })
      assert.deepInclude(yield* log.stats, { rowsSpilled: 0, rowsDropped: 5, rowsWritten: 3, queueDepth: 0 })
    }))

  it.effect("a row the store rejects is dropped alone; the rest of its batch is stored", () =>
    Effect.gen(function*() {
      // PostgreSQL: a tag too large for the GIN index, refused with the whole statement (54000). SQLite
      // stores any size, so there a trigger refuses the row as a constraint would (SQLITE_CONSTRAINT).
      const sql = yield* SqlClient.SqlClient
      const refusedAgent = unique("refused-agent")
      const poison = yield* sql.onDialectOrElse({
        sqlite: () =>
          sql`CREATE TRIGGER ${sql(unique("refuse"))} BEFORE INSERT ON request_log
            WHEN NEW.user_agent = ${sql.literal(`'${refusedAgent}'`)} BEGIN SELECT RAISE(ABORT, 'refused'); END`.pipe(
            Effect.as(makeRecord({ userAgent: refusedAgent }))
          ),
        orElse: () => Effect.succeed(makeRecord({ tags: [randomBytes(8000).toString("hex")] }))
      })
      const rows = [...makeRecords(6), poison, ...makeRecords(3)]
      const { log } = yield* withRequestLog(logEnv({ GATEWAY_LOG_BATCH_SIZE: "10" }), (log) => recordAll(log, rows))
      const stored = yield* rowsOf(idsOf(rows))
      assert.deepStrictEqual(stored.map((row) => row.id), idsOf(rows).filter((id) => id !== poison.id).sort())
      const stats = yield* log.stats
      assert.deepInclude(stats, { rowsWritten: 9, rowsDropped: 1, queueDepth: 0 })
      assert.isAtLeast(stats.writeFailures, 2)
    }))
})
