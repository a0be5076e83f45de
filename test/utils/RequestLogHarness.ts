/**
 * Helpers for the request-log suite: records with unique ids, the writer over the test store with its
 * settings from a record (not this process's environment), a store that can be taken down or made to
 * hang, a statement and span recorder, and polling for background work.
 */
import { ConfigProvider, Effect, Layer, Schedule, Tracer } from "effect"
import { SqlClient, SqlError, Statement } from "effect/sql"
import { existsSync, mkdtempSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { RequestLog } from "../../src/logs/RequestLog.ts"
import { replayPathOf } from "../../src/logs/RequestLogSpill.ts"
import { RequestLogStore } from "../../src/logs/RequestLogStore.ts"
import type { LogRow as QueryRow } from "../../src/logs/RequestQueries.ts"
import type { RequestRecord } from "../../src/logs/RequestRecord.ts"
import { fromJson, toBool, toDate } from "../../src/store/Rows.ts"
import { unique } from "./TestStore.ts"

/** A complete record with a unique id; `overrides` replaces fields. */
export const makeRecord = (overrides: Partial<RequestRecord> = {}): RequestRecord => ({
  id: unique("req"),
  kind: "completion",
  cost: null,
  createdAt: new Date(),
  orgId: "org_test",
  keyId: "key_test",
  requestedModel: "local/echo",
  model: "echo-1",
  provider: "local",
  status: 200,
  errorCode: null,
  stream: false,
  tags: ["test"],
  promptTokens: 12,
  completionTokens: 34,
  cachedTokens: 5,
  reasoningTokens: 6,
  svcTools: [],
  attempts: 1,
  latencyMs: 12.5,
  ttftMs: null,
  compressionLevel: null,
  promptTokensSaved: null,
  promptTokensSavedNet: null,
  shadowTokensSavedSafe: null,
  shadowTokensSavedAggressive: null,
  compressionSavedMicro: null,
  userAgent: "vitest",
  sessionId: null,
  promptText: null,
  completionText: null,
  ...overrides
})

/** A record that fills every column, each with a value unlike its default. */
export const RICH = {
  kind: "count_tokens" as const,
  cost: { input: 1_600, cachedInput: 200, cacheWrite: 0, output: 3_450, total: 5_250 },
  createdAt: new Date("2026-03-04T05:06:07.089Z"),
  orgId: "org_a",
  keyId: "key_b",
  requestedModel: "openai/gpt-x",
  model: "gpt-x-2026",
  provider: "openai",
  status: 502,
  errorCode: "upstream_error",
  stream: true,
  tags: ["team:ml", "quote\"d", "comma,brace{}", "ünïcode ✓"],
  promptTokens: 1200,
  completionTokens: 345,
  cachedTokens: 100,
  reasoningTokens: 50,
  svcTools: ["web_search", "calculator", "web_search"],
  attempts: 3,
  latencyMs: 1234.5,
  ttftMs: 87.25,
  compressionLevel: "safe",
  promptTokensSaved: 42,
  promptTokensSavedNet: 30,
  shadowTokensSavedSafe: null,
  shadowTokensSavedAggressive: null,
  compressionSavedMicro: -1_250,
  userAgent: "OpenAI/JS 7.57.0",
  sessionId: "9f4e2c1a-session",
  promptText: "What is 2+2? 😀\nline two",
  completionText: "4"
} satisfies Partial<RequestRecord>

export const makeRecords = (count: number, overrides: Partial<RequestRecord> = {}): Array<RequestRecord> =>
  Array.from({ length: count }, () => makeRecord(overrides))

/**
 * Quick settings for tests: short waits, and no retention unless a test asks for it (the PostgreSQL
 * database is shared: other suites' old rows are not ours to delete).
 */
export const logEnv = (extra: Record<string, string> = {}): Record<string, string> => ({
  GATEWAY_LOG_FLUSH_INTERVAL: "20 millis",
  GATEWAY_LOG_RETRY_BASE: "10 millis",
  GATEWAY_LOG_RETRY_MAX: "40 millis",
  GATEWAY_LOG_SHUTDOWN_TIMEOUT: "3 seconds",
  GATEWAY_LOG_RETENTION: "0 seconds",
  GATEWAY_LOG_RETENTION_INTERVAL: "1 hour",
  ...extra
})

/** A path for a spill file in a new temporary folder (the file itself does not exist yet). */
export const tempSpillFile = (): string => join(mkdtempSync(join(tmpdir(), "svc-gateway-log-")), "spill.ndjson")

export const readLines = (path: string): Array<string> =>
  readFileSync(path, "utf8").split("\n").filter((line) => line !== "")

/** The lines waiting in a spill file, including a replay under way (`<file>.replaying`). */
export const spilledLines = (path: string): Array<string> =>
  [path, replayPathOf(path)].flatMap((file) => existsSync(file) ? readLines(file) : [])

/** The ids of the rows waiting in a spill file. */
export const spilledIds = (path: string): Array<string> =>
  spilledLines(path).map((line) => (JSON.parse(line) as { readonly id: string }).id)

/** How the flaky store behaves right now; tests flip `mode` while the writer runs. */
export interface StoreControl {
  mode: "up" | "down" | "hang" | "lose-ack" | "crash"
  /** Insert calls seen, and the ids each carried. */
  readonly inserts: Array<ReadonlyArray<string>>
}

export const storeControl = (): StoreControl => ({ mode: "up", inserts: [] })

const outage = () =>
  new SqlError.SqlError({
    reason: new SqlError.ConnectionError({ cause: new Error("store down (test)"), message: "store down (test)" })
  })

/**
 * The real store, wrapped: `down` fails every insert as a lost connection, `hang` never answers,
 * `lose-ack` stores the rows and then reports a failure (the reply was lost), `crash` dies (a bug).
 */
export const flakyStore = (control: StoreControl) =>
  Layer.effect(
    RequestLogStore,
    Effect.gen(function*() {
      const real = yield* RequestLogStore
      return RequestLogStore.of({
        deleteBefore: real.deleteBefore,
        batchSize: real.batchSize,
        insert: (rows) =>
          Effect.suspend(() => {
            control.inserts.push(rows.map((row) => row.id))
            switch (control.mode) {
              case "up":
                return real.insert(rows)
              case "down":
                return Effect.fail(outage())
              case "hang":
                return Effect.never
              case "lose-ack":
                return real.insert(rows).pipe(Effect.andThen(Effect.fail(outage())))
              case "crash":
                return Effect.die(new Error("bug in the store (test)"))
            }
          })
      })
    })
  ).pipe(Layer.provide(RequestLogStore.layer))

/** What the writer's fibers did: SQL statements (text and parameters) and finished spans. */
export interface Recorder {
  readonly statements: Array<{ readonly sql: string; readonly params: ReadonlyArray<unknown> }>
  readonly spans: Array<Tracer.NativeSpan>
}

export const recorder = (): Recorder => ({ statements: [], spans: [] })

/**
 * Rows per INSERT the recorder saw: SQLite's batch travels as one JSON parameter, PostgreSQL's as an
 * array per column (the first holds the ids).
 */
export const insertSizes = (recorded: Recorder): Array<number> =>
  recorded.statements
    .filter((statement) => /^\s*INSERT INTO request_log/.test(statement.sql))
    .map((statement) => {
      const first = statement.params[0]
      // PostgreSQL: one array per column; SQLite: every row's values, one after another
      return typeof first === "string"
        ? statement.params.length / /\(([^)]*)\)/.exec(statement.sql)![1]!.split(",").length
        : (first as { readonly value: ReadonlyArray<unknown> }).value.length
    })

const recording = (recorded: Recorder) =>
  Layer.mergeAll(
    Layer.succeed(Statement.CurrentTransformer, (statement) =>
      Effect.sync(() => {
        const [sql, params] = statement.compile()
        recorded.statements.push({ sql, params })
        return statement
      })),
    Layer.succeed(
      Tracer.Tracer,
      Tracer.make({
        span(options) {
          const span = new Tracer.NativeSpan(options)
          recorded.spans.push(span)
          return span
        }
      })
    )
  )

export interface LogOptions {
  readonly store?: StoreControl
  readonly recorder?: Recorder
}

/** The writer with settings from `env`, over the test's `SqlClient` and `GatewayConfig`. */
export const requestLogLayer = (env: Record<string, string>, options: LogOptions = {}) =>
  RequestLog.layerNoDeps.pipe(
    Layer.provide(options.store === undefined ? RequestLogStore.layer : flakyStore(options.store)),
    Layer.provide(options.recorder === undefined ? Layer.empty : recording(options.recorder)),
    Layer.provide(ConfigProvider.layer(ConfigProvider.fromEnvRecord(env)))
  )

/**
 * Runs `body` with a writer of its own, then closes it (its shutdown flush included); returns the
 * service so a test can still read its stats afterwards.
 */
export const withRequestLog = <A, E, R>(
  env: Record<string, string>,
  body: (log: RequestLog["Service"]) => Effect.Effect<A, E, R>,
  options: LogOptions = {}
) =>
  Effect.gen(function*() {
    const log = yield* RequestLog
    const result = yield* body(log)
    return { log, result }
  }).pipe(Effect.provide(requestLogLayer(env, options)))

/** Polls `check` every 20 ms until it returns true; fails the test after `seconds`. */
export const eventually = <E, R>(what: string, check: Effect.Effect<boolean, E, R>, seconds = 10) =>
  check.pipe(
    Effect.filterOrFail((ok) => ok, () => new Error(`timed out waiting for: ${what}`)),
    Effect.retry({ schedule: Schedule.spaced("20 millis"), times: seconds * 50 }),
    Effect.asVoid
  )

/**
 * A stored row (without the queries' cursor column), in PostgreSQL's types whichever engine stored it:
 * SQLite's ISO text, 0/1 and JSON text read back as a `Date`, a boolean and lists.
 */
export type LogRow = Omit<QueryRow, "cursor_time" | "created_at" | "stream" | "tags" | "svc_tools"> & {
  readonly created_at: Date
  readonly stream: boolean
  readonly tags: ReadonlyArray<string>
  readonly svc_tools: ReadonlyArray<string>
}

/** The stored rows among `ids`, by id. */
export const rowsOf = (ids: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<Omit<QueryRow, "cursor_time">>`SELECT * FROM request_log WHERE id IN ${
      sql.in(ids)
    } ORDER BY id`
    return rows.map((row): LogRow => ({
      ...row,
      created_at: toDate(row.created_at),
      stream: toBool(row.stream),
      tags: fromJson(row.tags),
      svc_tools: fromJson(row.svc_tools)
    }))
  })

/** How many of `ids` are stored. */
export const countOf = (ids: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<{ readonly n: number }>`
      SELECT CAST(count(*) AS INTEGER) AS n FROM request_log WHERE id IN ${sql.in(ids)}`
    return rows[0]?.n ?? 0
  })
