/**
 * The SQL side of the request log: a batch inserted at once (one statement on PostgreSQL, one
 * transaction on SQLite) and one small retention delete. The
 * writer (`RequestLogWriter.ts`) decides when and what; this module only talks to the `request_log`
 * table (migration 0003), so tests can wrap it with a store that fails or hangs.
 */
import { Context, Effect, Layer } from "effect"
import { SqlClient, SqlError } from "effect/sql"
import type { SQLInputValue } from "node:sqlite"
import { toStoredTime } from "../store/Rows.ts"
import {
  COLUMN_NAMES,
  columnsOf,
  float,
  floatOrNull,
  int,
  intOrNull,
  savingOrNull,
  text,
  textOrNull
} from "./RequestLogColumns.ts"
import type { RequestRecord } from "./RequestRecord.ts"

export class RequestLogStore extends Context.Service<RequestLogStore, {
  /**
   * Inserts the rows all or none (one statement on PostgreSQL, one transaction on SQLite); a row whose
   * id is already stored is skipped, so a batch can be sent again after a failure or a replay without
   * duplicating anything.
   */
  readonly insert: (rows: ReadonlyArray<RequestRecord>) => Effect.Effect<void, SqlError.SqlError>
  /** Deletes at most `limit` rows created before `cutoff`; returns how many it deleted. */
  readonly deleteBefore: (cutoff: Date, limit: number) => Effect.Effect<number, SqlError.SqlError>
  /** Rows per batch when `GATEWAY_LOG_BATCH_SIZE` is unset: what suits this store (`BATCH_SIZES`). */
  readonly batchSize: number
}>()("svc-gateway/RequestLogStore") {
  static readonly layer = Layer.effect(
    RequestLogStore,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient

      // PostgreSQL takes the batch as one typed array per column (`RequestLogColumns.ts`).
      // A batch goes first without ON CONFLICT: the clause makes every row a speculative insertion on
      // PostgreSQL, a tenth of the statement's work (measured: 13.3 -> 12.0 us a row). A batch that
      // repeats a stored id (sent again after a timeout whose first try committed, a replayed spill)
      // fails whole on the unique key and is sent again with the clause, which skips what is stored.
      const insertPg = (batch: ReturnType<typeof columnsOf>, skipStored: boolean) =>
        sql.unsafe(
          skipStored ? `${batch.statement} ON CONFLICT (created_at, id) DO NOTHING` : batch.statement,
          batch.parameters
        )

      // SQLite takes a batch as multi-row INSERTs of 100, 10 and 1 rows (three statements, each prepared
      // once) in one transaction: node:sqlite binds the values directly, about 5.5 us a row (4.2 of them
      // SQLite's own: the table, its four indexes, the WAL and its checkpoints), where the batch as one
      // JSON document (json_each, a `->>` per column) cost 24-25 us a row and a statement per row 14-15
      // (the client's work per statement), all of it on the event loop. A writer thread with a second
      // connection took it off the loop and lost 6-10 % of whole-answer RPS at c=16 in four paired runs:
      // on two cores, a thread competing with the request path costs more than the pause it saves
      // (docs/performance-history.md). A stored id is skipped by the statement itself; SQLite checks the key either way.
      const insertSqlite = (statements: ReadonlyArray<SqliteStatement>) =>
        sql.withTransaction(
          Effect.all(statements.map((statement) => sql.unsafe(statement.sql, statement.params)), { discard: true })
        )

      const insert = (rows: ReadonlyArray<RequestRecord>) =>
        Effect.suspend(() => {
          if (rows.length === 0) return Effect.void
          let statement: (skipStored: boolean) => Effect.Effect<unknown, SqlError.SqlError>
          try {
            statement = sql.onDialectOrElse({
              sqlite: () => {
                const statements = sqliteStatements(rows)
                return () => insertSqlite(statements)
              },
              orElse: () => {
                const columns = columnsOf(rows)
                return (skipStored: boolean) => insertPg(columns, skipStored)
              }
            })
          } catch (cause) {
            return Effect.fail(unstorable(cause))
          }
          return Effect.catchIf(statement(false), isStoredId, () => statement(true))
        }).pipe(Effect.asVoid, Effect.catchDefect(asSqlError))

      // Small batches through the time index (SQLite's) or the key (created_at, id) (PostgreSQL's, whose
      // DELETE then takes the rows it locked by their physical address, with no second index lookup);
      // SKIP LOCKED lets two gateways on one PostgreSQL share the work instead of waiting on each other
      // (SQLite has one writer and no such clause).
      const deleteBefore = (cutoff: Date, limit: number) =>
        sql.onDialectOrElse({
          sqlite: () =>
            sql<{ readonly id: string }>`DELETE FROM request_log WHERE id IN (
            SELECT id FROM request_log WHERE created_at < ${cutoff} LIMIT ${limit}) RETURNING id`.pipe(
              Effect.map((rows) => rows.length)
            ),
          orElse: () =>
            sql<{ readonly deleted: number }>`WITH doomed AS (
              DELETE FROM request_log WHERE ctid = ANY(ARRAY(
                SELECT ctid FROM request_log WHERE created_at < ${cutoff} LIMIT ${limit} FOR UPDATE SKIP LOCKED))
              RETURNING 1)
            SELECT count(*)::int AS deleted FROM doomed`.pipe(Effect.map((rows) => rows[0]?.deleted ?? 0))
        })

      const batchSize = sql.onDialectOrElse({ sqlite: () => BATCH_SIZES.sqlite, orElse: () => BATCH_SIZES.postgres })
      return RequestLogStore.of({ insert, deleteBefore, batchSize })
    })
  )
}

/**
 * Rows per batch by store. A batch wakes PostgreSQL's backend, which on a machine it shares with the
 * gateway takes a core from the request path while it works; 500-row batches (one every 38 ms at 13,000
 * requests a second) cost 13.6-16.4 % of whole-answer RPS at c=16, batches of up to 5,000 (at that rate
 * one per flush interval) 9.2-10.1 %, in the same runs' paired rounds; the server's CPU a row fell
 * 5.1 -> 4.5 us, the gateway's a request 76.6 -> 74.6 us (docs/performance-history.md). SQLite inserts on the
 * event loop, so there a batch is a pause for every request in flight (about 5 us a row): batches of
 * 2,000 cost 5.2-8.0 % against 10.0 % for 500 (each transaction writes the tails of the table and its
 * indexes once), with p99 at c=16 level whole and 2.7 ms higher streamed in one run. The flush interval
 * still bounds how long a row waits, and below 10,000 requests a second it, not the size, closes every
 * batch on either store.
 */
const BATCH_SIZES = { postgres: 5000, sqlite: 2000 } as const

/** Rows per INSERT, largest first; 100 rows bind 3,400 values, well under SQLite's 32,766. */
const SQLITE_CHUNKS = [100, 10, 1]

const SQLITE_ROW = `(${COLUMN_NAMES.map(() => "?").join(", ")})`
const sqliteInserts = new Map(
  SQLITE_CHUNKS.map((size) => [
    size,
    `INSERT INTO request_log (${COLUMN_NAMES.join(", ")})
  VALUES ${Array.from({ length: size }, () => SQLITE_ROW).join(", ")} ON CONFLICT (id) DO NOTHING`
  ])
)

interface SqliteStatement {
  readonly sql: string
  readonly params: ReadonlyArray<SQLInputValue>
}

/** The rows as `sqliteInserts`' statements, largest first, each with its rows' values in one list. */
const sqliteStatements = (rows: ReadonlyArray<RequestRecord>): ReadonlyArray<SqliteStatement> => {
  const statements: Array<SqliteStatement> = []
  let at = 0
  for (const size of SQLITE_CHUNKS) {
    for (; rows.length - at >= size; at += size) {
      const params: Array<SQLInputValue> = []
      for (let i = at; i < at + size; i++) pushSqliteValues(params, rows[i]!)
      statements.push({ sql: sqliteInserts.get(size)!, params })
    }
  }
  return statements
}

/** A defect while sending a statement, as a failure the writer retries rather than a crash. */
const asSqlError = (defect: unknown) =>
  Effect.fail(
    new SqlError.SqlError({
      reason: new SqlError.UnknownError({ cause: defect, message: "request log insert failed", operation: "insert" })
    })
  )

/** A row that is not a `RequestRecord` at all (a bug upstream): it cannot be stored, ever. */
class UnstorableRow extends Error {}

const unstorable = (cause: unknown) =>
  new SqlError.SqlError({
    reason: new SqlError.UnknownError({
      cause: new UnstorableRow(`not a request record: ${String(cause)}`, { cause }),
      message: "request log row cannot be encoded",
      operation: "insert"
    })
  })

/** The engine's own error codes behind a failure: PostgreSQL's SQLSTATE, SQLite's extended result code. */
const codesOf = (error: SqlError.SqlError): { readonly sqlstate: unknown; readonly errcode: unknown } => {
  const cause: unknown = error.reason.cause
  if (typeof cause !== "object" || cause === null) return { sqlstate: undefined, errcode: undefined }
  return { sqlstate: "code" in cause ? cause.code : undefined, errcode: "errcode" in cause ? cause.errcode : undefined }
}

/** Whether the store refused a row for an id it holds already (PostgreSQL 23505; SQLite's primary key or unique). */
export const isStoredId = (error: SqlError.SqlError): boolean => {
  const { errcode, sqlstate } = codesOf(error)
  // SQLITE_CONSTRAINT_PRIMARYKEY, SQLITE_CONSTRAINT_UNIQUE
  return sqlstate === "23505" || errcode === 1555 || errcode === 2067
}

/**
 * Whether the store refused these rows for what they hold (bad data, a constraint, a value too large
 * for an index), rather than for being unavailable. Only such failures are worth isolating row by row;
 * anything else (connection lost, server restarting, disk full, even a bug in the statement) is retried
 * and the rows are kept.
 */
export const isRejectedRow = (error: SqlError.SqlError): boolean => {
  if (error.reason.cause instanceof UnstorableRow) return true
  const { errcode, sqlstate } = codesOf(error)
  // PostgreSQL: 22 data exception, 23 integrity constraint, 54000 program limit exceeded (index row size)
  if (
    typeof sqlstate === "string" && (sqlstate.startsWith("22") || sqlstate.startsWith("23") || sqlstate === "54000")
  ) return true
  // SQLite's primary result codes: 18 TOOBIG, 19 CONSTRAINT, 20 MISMATCH
  return typeof errcode === "number" && [18, 19, 20].includes(errcode & 0xff)
}

/**
 * A list column holds JSON text. `JSON.stringify` escapes an unpaired surrogate rather than letting the
 * UTF-8 encoder replace it, so the list makes each value well-formed first.
 */
const list = (values: ReadonlyArray<string>): string =>
  values.length === 0 ? "[]" : JSON.stringify(values.map((value) => text(value.toWellFormed())))

/** The last row's stored time: a batch's rows share their millisecond more often than not. */
let lastTime = Number.NaN
let lastStoredTime = ""
const storedTime = (date: Date): string => {
  const time = date.getTime()
  if (Number.isNaN(time)) return toStoredTime(new Date())
  if (time !== lastTime) {
    lastTime = time
    lastStoredTime = toStoredTime(date)
  }
  return lastStoredTime
}

/**
 * Appends the record as one row of `sqliteInserts`' values, in `COLUMN_NAMES`' order; values the column
 * types cannot hold are coerced, not rejected.
 */
const pushSqliteValues = (values: Array<SQLInputValue>, record: RequestRecord): void => {
  const cost = record.cost
  values.push(
    text(record.id),
    storedTime(record.createdAt),
    textOrNull(record.orgId),
    textOrNull(record.keyId),
    textOrNull(record.requestedModel),
    textOrNull(record.model),
    textOrNull(record.provider),
    int(record.status),
    textOrNull(record.errorCode),
    record.stream === true ? 1 : 0,
    list(record.tags),
    int(record.promptTokens),
    int(record.completionTokens),
    int(record.cachedTokens),
    int(record.reasoningTokens),
    list(record.svcTools),
    int(record.attempts),
    float(record.latencyMs),
    floatOrNull(record.ttftMs),
    textOrNull(record.userAgent),
    textOrNull(record.promptText),
    textOrNull(record.completionText),
    textOrNull(record.sessionId),
    textOrNull(record.compressionLevel),
    savingOrNull(record.promptTokensSaved),
    savingOrNull(record.promptTokensSavedNet),
    intOrNull(record.shadowTokensSavedSafe),
    intOrNull(record.shadowTokensSavedAggressive),
    // NULL for a completion, the kind of nearly every row: read back as one
    record.kind === "completion" ? null : record.kind,
    cost === null ? null : int(cost.input),
    cost === null ? null : int(cost.cachedInput),
    cost === null ? null : int(cost.cacheWrite),
    cost === null ? null : int(cost.output),
    savingOrNull(record.compressionSavedMicro)
  )
}
