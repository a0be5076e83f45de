/**
 * Retention on a store of its own (other suites' rows are not ours to delete): only rows older than
 * `GATEWAY_LOG_RETENTION` go, a small batch per statement; `0 seconds` keeps everything; the
 * background fiber runs it on its own every `GATEWAY_LOG_RETENTION_INTERVAL`.
 */
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { Statement } from "effect/sql"
import { RequestLogStore } from "../../src/logs/RequestLogStore.ts"
import { countOf, eventually, logEnv, makeRecords, rowsOf, withRequestLog } from "../utils/RequestLogHarness.ts"
import { FreshStore } from "../utils/TestStore.ts"

const DAY = 24 * 60 * 60 * 1000
const daysAgo = (days: number) => new Date(Date.now() - days * DAY)

/** Stores the rows directly, bypassing the writer. */
const seed = (rows: ReturnType<typeof makeRecords>) =>
  Effect.gen(function*() {
    yield* (yield* RequestLogStore).insert(rows)
    return rows.map((row) => row.id)
  }).pipe(Effect.provide(RequestLogStore.layer))

/** Runs `effect` and returns the SQL text of every statement it executed. */
const statementsOf = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const seen: Array<string> = []
    const result = yield* effect.pipe(Effect.provideService(Statement.CurrentTransformer, (statement) =>
      Effect.sync(() => {
        seen.push(statement.compile()[0])
        return statement
      })))
    return { result, seen }
  })

layer(FreshStore(), { excludeTestServices: true })("RequestLog retention", (it) => {
  it.effect("purgeExpired deletes only rows older than the retention, a batch per statement", () =>
    Effect.gen(function*() {
      const old = yield* seed([
        ...makeRecords(3, { createdAt: daysAgo(31) }),
        ...makeRecords(2, { createdAt: daysAgo(400) })
      ])
      const recent = yield* seed([
        ...makeRecords(2, { createdAt: daysAgo(29) }),
        ...makeRecords(1, { createdAt: new Date() })
      ])
      const env = logEnv({ GATEWAY_LOG_RETENTION: "30 days", GATEWAY_LOG_RETENTION_BATCH: "2" })
      const { log, result } = yield* withRequestLog(env, (log) => statementsOf(log.purgeExpired))
      assert.strictEqual(result.result, 5)
      const deletes = result.seen.filter((sql) => /DELETE FROM request_log/.test(sql))
      assert.strictEqual(deletes.length, 3, "5 rows, 2 per statement")
      assert.deepStrictEqual(result.seen.length, deletes.length)
      assert.strictEqual(yield* countOf(old), 0)
      assert.deepStrictEqual((yield* rowsOf(recent)).map((row) => row.id), [...recent].sort())
      assert.strictEqual((yield* log.stats).rowsDeleted, 5)
    }))

  it.effect("GATEWAY_LOG_RETENTION=0 seconds keeps every row", () =>
    Effect.gen(function*() {
      const old = yield* seed(makeRecords(3, { createdAt: daysAgo(3650) }))
      const { result } = yield* withRequestLog(
        logEnv({ GATEWAY_LOG_RETENTION: "0 seconds", GATEWAY_LOG_RETENTION_INTERVAL: "10 millis" }),
        (log) => Effect.sleep("100 millis").pipe(Effect.andThen(statementsOf(log.purgeExpired)))
      )
      assert.deepStrictEqual([result.result, result.seen.length], [0, 0])
      assert.strictEqual(yield* countOf(old), 3)
    }))

  it.effect("the background fiber runs retention every interval", () =>
    Effect.gen(function*() {
      const old = yield* seed(makeRecords(5, { createdAt: daysAgo(2) }))
      const recent = yield* seed(makeRecords(2))
      const env = logEnv({
        GATEWAY_LOG_RETENTION: "1 day",
        GATEWAY_LOG_RETENTION_INTERVAL: "50 millis",
        GATEWAY_LOG_RETENTION_BATCH: "2"
      })
      const { log } = yield* withRequestLog(env, () =>
        eventually("old rows deleted", Effect.map(countOf(old), (n) => n === 0)))
      assert.strictEqual(yield* countOf(recent), 2)
      assert.isAtLeast((yield* log.stats).rowsDeleted, 5)
    }))
})
