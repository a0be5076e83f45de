/**
 * The request-log writer on the real store: every column round-trips, many records become few INSERT
 * statements (each a traced `RequestLog.flush`), `record` never waits on the store, closing the layer
 * flushes the queue, and `GATEWAY_REQUEST_LOG=off` writes nothing.
 */
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { existsSync } from "node:fs"
import type { RequestLog } from "../../src/logs/RequestLog.ts"
import { RequestLogStore } from "../../src/logs/RequestLogStore.ts"
import type { RequestRecord } from "../../src/logs/RequestRecord.ts"
import {
  countOf,
  eventually,
  insertSizes,
  logEnv,
  type LogRow,
  makeRecord,
  makeRecords,
  recorder,
  RICH,
  rowsOf,
  spilledIds,
  storeControl,
  tempSpillFile,
  withRequestLog
} from "../utils/RequestLogHarness.ts"
import { StoreLive, usingPostgres } from "../utils/TestStore.ts"

const recordAll = (log: RequestLog["Service"], rows: ReadonlyArray<RequestRecord>) =>
  Effect.forEach(rows, (row) => log.record(row), { discard: true })

/** The row `RICH` is stored as, under `id`. */
const richRow = (id: string): LogRow => ({
  id,
  created_at: RICH.createdAt,
  org_id: "org_a",
  key_id: "key_b",
  requested_model: "openai/gpt-x",
  model: "gpt-x-2026",
  provider: "openai",
  status: 502,
  error_code: "upstream_error",
  stream: true,
  tags: ["team:ml", "quote\"d", "comma,brace{}", "ünïcode ✓"],
  prompt_tokens: 1200,
  completion_tokens: 345,
  cached_tokens: 100,
  reasoning_tokens: 50,
  svc_tools: ["web_search", "calculator", "web_search"],
  attempts: 3,
  latency_ms: 1234.5,
  ttft_ms: 87.25,
  compression_level: "safe",
  prompt_tokens_saved: 42,
  prompt_tokens_saved_net: 30,
  shadow_tokens_saved_safe: null,
  shadow_tokens_saved_aggressive: null,
  user_agent: "OpenAI/JS 7.57.0",
  prompt_text: "What is 2+2? 😀\nline two",
  completion_text: "4",
  session_id: "9f4e2c1a-session",
  kind: "count_tokens",
  cost_input: 1_600,
  cost_cached_input: 200,
  cost_cache_write: 0,
  cost_output: 3_450,
  compression_saved_micro: -1_250
})

layer(StoreLive, { excludeTestServices: true })("RequestLog", (it) => {
  it.effect("a row round-trips every column; an all-null row keeps the column defaults' shape", () =>
    Effect.gen(function*() {
      const full = makeRecord(RICH)
      const empty = makeRecord({
        orgId: null,
        keyId: null,
        requestedModel: null,
        model: null,
        provider: null,
        errorCode: null,
        tags: [],
        svcTools: [],
        ttftMs: null,
        compressionLevel: null,
        promptTokensSaved: null,
        promptTokensSavedNet: null,
        shadowTokensSavedSafe: null,
        shadowTokensSavedAggressive: null,
        userAgent: null,
        promptText: null,
        completionText: null
      })
      // zero counts travel as absent fields and must come back as 0; a zero saving is left out of the row
      // (NULL), which the queries read as 0 under a level (Queries.test.ts)
      const zeros = makeRecord({
        promptTokens: 0,
        completionTokens: 0,
        cachedTokens: 0,
        reasoningTokens: 0,
        attempts: 0,
        latencyMs: 0,
        compressionLevel: "safe",
        promptTokensSaved: 0
      })
      yield* withRequestLog(logEnv(), (log) => recordAll(log, [full, empty, zeros]))
      const rows = yield* rowsOf([full.id, empty.id, zeros.id])
      const byId = new Map(rows.map((row) => [row.id, row]))
      assert.deepStrictEqual({ ...byId.get(full.id) }, richRow(full.id))
      const stored = byId.get(empty.id)
      assert.isDefined(stored)
      assert.deepStrictEqual([stored.org_id, stored.key_id, stored.model, stored.user_agent], [null, null, null, null])
      assert.deepStrictEqual([stored.tags, stored.svc_tools], [[], []])
      assert.deepStrictEqual([stored.ttft_ms, stored.prompt_tokens_saved, stored.prompt_text], [null, null, null])
      // a completion, nearly every row, is stored as NULL and read back as one (Queries.test.ts)
      assert.isNull(stored.kind)
      assert.deepStrictEqual([stored.cost_input, stored.cost_output], [null, null])
      const zero = byId.get(zeros.id)
      assert.isDefined(zero)
      assert.deepStrictEqual(
        [zero.prompt_tokens, zero.completion_tokens, zero.cached_tokens, zero.reasoning_tokens, zero.attempts],
        [0, 0, 0, 0, 0]
      )
      assert.deepStrictEqual([zero.latency_ms, zero.compression_level, zero.prompt_tokens_saved], [0, "safe", null])
    }))

  it.effect("a column that holds one value in every row of a batch is stored in each row", () =>
    Effect.gen(function*() {
      // PostgreSQL gets such a column once, as a scalar, rather than as an array of copies
      const copies = makeRecords(3, RICH)
      yield* withRequestLog(logEnv(), (log) => recordAll(log, copies))
      const stored = new Map((yield* rowsOf(copies.map((row) => row.id))).map((row) => [row.id, { ...row }]))
      assert.deepStrictEqual(copies.map((row) => stored.get(row.id)), copies.map((row) => richRow(row.id)))
    }))

  it.effect("a batch names only the columns it fills: the rest take their defaults, in any order of batches", () =>
    Effect.gen(function*() {
      // the first batch leaves every nullable column NULL (and the lists empty) in every row; the second
      // fills the last columns (the costs, the saving) in one row of two, the third again in none
      const sparse = makeRecords(2, { tags: [], userAgent: null, compressionLevel: null, promptTokensSaved: null })
      const priced = makeRecord({
        cost: { input: 7, cachedInput: 0, cacheWrite: 1, output: 9, total: 17 },
        compressionLevel: "safe",
        compressionSavedMicro: 5,
        tags: ["late"]
      })
      const plain = makeRecord({ tags: [] })
      const again = makeRecord({ tags: [], svcTools: [] })
      yield* withRequestLog(logEnv(), (log) => recordAll(log, sparse))
      yield* withRequestLog(logEnv(), (log) => recordAll(log, [priced, plain]))
      yield* withRequestLog(logEnv(), (log) => recordAll(log, [again]))
      const rows = new Map(
        (yield* rowsOf([...sparse.map((r) => r.id), priced.id, plain.id, again.id])).map((row) => [row.id, row])
      )
      for (const row of sparse) {
        const stored = rows.get(row.id)
        assert.isDefined(stored)
        assert.deepStrictEqual([stored.tags, stored.svc_tools, stored.user_agent, stored.kind], [[], [], null, null])
        assert.deepStrictEqual([stored.status, stored.org_id, stored.prompt_tokens], [200, "org_test", 12])
      }
      const costly = rows.get(priced.id)
      assert.isDefined(costly)
      assert.deepStrictEqual(
        [costly.cost_input, costly.cost_cache_write, costly.cost_output, costly.compression_saved_micro, costly.tags],
        [7, 1, 9, 5, ["late"]]
      )
      for (const id of [plain.id, again.id]) {
        const stored = rows.get(id)
        assert.isDefined(stored)
        assert.deepStrictEqual([stored.cost_input, stored.compression_saved_micro, stored.tags], [null, null, []])
      }
    }))

  it.effect("text PostgreSQL cannot hold and numbers its columns cannot hold are coerced, not lost", () =>
    Effect.gen(function*() {
      const odd = makeRecord({
        promptText: "nul\u0000byte",
        completionText: "lone \ud800 surrogate, \udc00 low one, 😀 pair",
        tags: ["a\u0000b"],
        promptTokens: 10.6,
        latencyMs: Number.NaN,
        ttftMs: Number.POSITIVE_INFINITY
      })
      yield* withRequestLog(logEnv(), (log) => log.record(odd))
      const [row] = yield* rowsOf([odd.id])
      assert.isDefined(row)
      assert.deepStrictEqual(
        [row.prompt_text, row.completion_text, row.tags, row.prompt_tokens, row.latency_ms, row.ttft_ms],
        ["nul\uFFFDbyte", "lone \uFFFD surrogate, \uFFFD low one, 😀 pair", ["a\uFFFDb"], 11, 0, null]
      )
    }))

  it.effect("tags and tool ids that look like list syntax are stored as they are", () =>
    Effect.gen(function*() {
      // PostgreSQL receives each row's list as an array literal: quotes, backslashes, braces, commas
      // and the word NULL must come back as the caller's text
      const tags = ["a\"b", "back\\slash", "{x,y}", "NULL", " spaced ", "ünï"]
      const listed = makeRecord({ tags, svcTools: ["svc_a", "svc_\"b\""] })
      yield* withRequestLog(logEnv(), (log) => log.record(listed))
      const [row] = yield* rowsOf([listed.id])
      assert.isDefined(row)
      assert.deepStrictEqual([row.tags, row.svc_tools], [tags, ["svc_a", "svc_\"b\""]])
    }))

  it.effect("many records become few INSERT statements, each a RequestLog.flush span", () =>
    Effect.gen(function*() {
      const recorded = recorder()
      const rows = makeRecords(250)
      const ids = rows.map((row) => row.id)
      const { log } = yield* withRequestLog(
        logEnv({ GATEWAY_LOG_BATCH_SIZE: "100", GATEWAY_LOG_FLUSH_INTERVAL: "100 millis" }),
        (log) =>
          Effect.gen(function*() {
            yield* recordAll(log, rows)
            yield* eventually("250 rows stored", Effect.map(countOf(ids), (n) => n === 250))
          }),
        { recorder: recorded }
      )
      // a batch is one INSERT on PostgreSQL; SQLite takes one of 100 rows, or 10s and 1s, in one transaction
      assert.deepStrictEqual(insertSizes(recorded), usingPostgres ? [100, 100, 50] : [100, 100, 10, 10, 10, 10, 10])
      const flushes = recorded.spans.filter((span) => span.name === "RequestLog.flush")
      assert.deepStrictEqual(flushes.map((span) => [span.attributes.get("rows"), span.attributes.get("outcome")]), [
        [100, "written"],
        [100, "written"],
        [50, "written"]
      ])
      const stats = yield* log.stats
      assert.deepInclude(stats, {
        enabled: true,
        queueDepth: 0,
        rowsRecorded: 250,
        rowsWritten: 250,
        batchesWritten: 3,
        writeFailures: 0,
        rowsSpilled: 0,
        rowsDropped: 0
      })
    }))

  it.effect("without GATEWAY_LOG_BATCH_SIZE a batch is the store's size: 5,000 on PostgreSQL, 2,000 on SQLite", () =>
    Effect.gen(function*() {
      const recorded = recorder()
      const rows = makeRecords(2500)
      // no flush within the test: only full batches, then the rest as closing the layer drains the queue
      yield* withRequestLog(logEnv({ GATEWAY_LOG_FLUSH_INTERVAL: "1 hour" }), (log) => recordAll(log, rows), {
        recorder: recorded
      })
      const flushes = recorded.spans.filter((span) => span.name === "RequestLog.flush")
      assert.deepStrictEqual(
        flushes.map((span) => span.attributes.get("rows")),
        usingPostgres ? [2500] : [2000, 500]
      )
      assert.strictEqual(yield* countOf(rows.map((row) => row.id)), 2500)
    }))

  it.effect("record never waits on the store: a hanging store does not slow it down", () =>
    Effect.gen(function*() {
      const control = storeControl()
      control.mode = "hang"
      const spillFile = tempSpillFile()
      const rows = makeRecords(2000)
      const { log, result: elapsed } = yield* withRequestLog(
        logEnv({ GATEWAY_LOG_SPILL_FILE: spillFile, GATEWAY_LOG_SHUTDOWN_TIMEOUT: "300 millis" }),
        (log) =>
          Effect.gen(function*() {
            const started = performance.now()
            yield* recordAll(log, rows)
            const elapsed = performance.now() - started
            assert.strictEqual((yield* log.stats).queueDepth, 2000)
            return elapsed
          }),
        { store: control }
      )
      assert.isBelow(elapsed, 500, `2000 records took ${elapsed} ms`)
      // the hung insert was given up at shutdown, within the bound, and every row went to the spill file
      const stats = yield* log.stats
      assert.deepInclude(stats, { queueDepth: 0, rowsWritten: 0, rowsSpilled: 2000, rowsDropped: 0 })
      assert.strictEqual(new Set(spilledIds(spillFile)).size, 2000)
    }))

  it.effect("closing the layer flushes what is queued, without waiting for the flush interval", () =>
    Effect.gen(function*() {
      const rows = makeRecords(30)
      const started = Date.now()
      const { log } = yield* withRequestLog(
        logEnv({ GATEWAY_LOG_FLUSH_INTERVAL: "1 minute", GATEWAY_LOG_BATCH_SIZE: "1000" }),
        (log) => recordAll(log, rows)
      )
      assert.isBelow(Date.now() - started, 30_000)
      assert.strictEqual(yield* countOf(rows.map((row) => row.id)), 30)
      assert.deepInclude(yield* log.stats, { rowsWritten: 30, queueDepth: 0, rowsSpilled: 0 })
    }))

  it.effect("a row recorded after shutdown goes straight to the spill file", () =>
    Effect.gen(function*() {
      const spillFile = tempSpillFile()
      const { log } = yield* withRequestLog(logEnv({ GATEWAY_LOG_SPILL_FILE: spillFile }), () => Effect.void)
      const late = makeRecord()
      yield* log.record(late)
      assert.deepStrictEqual(spilledIds(spillFile), [late.id])
      assert.deepInclude(yield* log.stats, { rowsRecorded: 1, rowsSpilled: 1 })
    }))

  it.effect("GATEWAY_REQUEST_LOG=off: record is a no-op and nothing touches the store", () =>
    Effect.gen(function*() {
      const recorded = recorder()
      const control = storeControl()
      const spillFile = tempSpillFile()
      const rows = makeRecords(20)
      const { log } = yield* withRequestLog(
        logEnv({
          GATEWAY_REQUEST_LOG: "off",
          GATEWAY_LOG_SPILL_FILE: spillFile,
          GATEWAY_LOG_FLUSH_INTERVAL: "1 millis"
        }),
        (log) => recordAll(log, rows).pipe(Effect.andThen(Effect.sleep("50 millis"))),
        { store: control, recorder: recorded }
      )
      assert.strictEqual(yield* countOf(rows.map((row) => row.id)), 0)
      assert.deepStrictEqual([control.inserts.length, recorded.statements.length], [0, 0])
      assert.isFalse(existsSync(spillFile))
      assert.deepInclude(yield* log.stats, { enabled: false, rowsRecorded: 0, queueDepth: 0 })
      assert.strictEqual(yield* log.purgeExpired, 0)
    }))

  it.effect("the store inserts a batch in one statement and skips ids it already has", () =>
    Effect.gen(function*() {
      const store = yield* RequestLogStore
      const first = makeRecord({ status: 200 })
      const second = makeRecord()
      yield* store.insert([first])
      yield* store.insert([{ ...first, status: 500 }, second])
      const rows = yield* rowsOf([first.id, second.id])
      assert.deepStrictEqual(rows.map((row) => [row.id, row.status]).sort(), [[first.id, 200], [second.id, 200]].sort())
    }).pipe(Effect.provide(RequestLogStore.layer)))
})
