/**
 * An `effect/sql` client over Node's built-in `node:sqlite` (in the pinned Node 24, no native download):
 * the embedded store's engine, at a tenth of the memory of the embedded PostgreSQL (PGlite) it replaced
 * (67 MiB in a bare process after 100,000 log-like rows, against PGlite's 324 MiB and more). One connection, shared through a semaphore
 * by `SqlClient.makeSqliteAcquirers` (SQLite serialises writers anyway), statements prepared once and
 * cached, WAL journal on disk. The embedded store (`Database.ts`); where its SQL differs from
 * PostgreSQL's, the repositories say so with `sql.onDialectOrElse`.
 */
import { Cache, Duration, Effect, Layer, Semaphore, Stream } from "effect"
import { Reactivity } from "effect/reactivity"
import { SqlClient, SqlError, Statement } from "effect/sql"
import type { SqlConnection } from "effect/sql"
import { DatabaseSync, type StatementSync } from "node:sqlite"
import { toStoredTime } from "./Rows.ts"

/** What the SQL client asks of rows before they are returned (its name transforms). */
type Transform = <A extends object>(rows: ReadonlyArray<A>) => ReadonlyArray<A>

export interface SqliteOptions {
  /** A file, or `:memory:`. */
  readonly filename: string
}

/** node:sqlite's error code as the `errno` effect's classifier reads. */
const withErrno = (cause: unknown): unknown =>
  typeof cause === "object" && cause !== null && "errcode" in cause && !("errno" in cause) &&
    typeof cause.errcode === "number"
    ? Object.assign(cause, { errno: cause.errcode })
    : cause

const sqlError = (cause: unknown, message: string, operation: string) =>
  new SqlError.SqlError({ reason: SqlError.classifySqliteError(withErrno(cause), { message, operation }) })

/**
 * A parameter as SQLite stores it: times as the store's ISO 8601 text (`toStoredTime`, which sorts as
 * time does and is what the schema's defaults write), booleans as 0 and 1. node:sqlite refuses both.
 */
const bindable = (value: unknown): unknown =>
  value instanceof Date ? toStoredTime(value) : typeof value === "boolean" ? (value ? 1 : 0) : value

const attempt = <A>(run: () => A) =>
  Effect.try({ try: run, catch: (cause) => sqlError(cause, "Failed to execute statement", "execute") })

/** One statement run: its rows (objects, or `arrays` of values); none when it returns none. */
const rowsOf = <Row>(statement: StatementSync, params: ReadonlyArray<unknown>, arrays: boolean) =>
  attempt((): ReadonlyArray<Row> => {
    statement.setReturnArrays(arrays)
    const values = params.map(bindable) as Array<never>
    if (statement.columns().length > 0) return statement.all(...values) as ReadonlyArray<unknown> as ReadonlyArray<Row>
    statement.run(...values)
    return []
  })

/** One statement run for what it changed (its rows when it returns some). */
const rawOf = (statement: StatementSync, params: ReadonlyArray<unknown>) =>
  attempt((): unknown => {
    statement.setReturnArrays(false)
    const values = params.map(bindable) as Array<never>
    if (statement.columns().length > 0) return statement.all(...values)
    const result = statement.run(...values)
    return { changes: result.changes, lastInsertRowid: result.lastInsertRowid }
  })

const connect = (options: SqliteOptions) =>
  Effect.gen(function*() {
    const db = yield* Effect.acquireRelease(
      Effect.try({
        try: () => new DatabaseSync(options.filename),
        catch: (cause) => sqlError(cause, `Failed to open ${options.filename}`, "open")
      }),
      (db) => Effect.sync(() => db.close())
    )
    // WAL: readers never wait for the writer; NORMAL: a commit survives the process dying (not, for the
    // last few, a power cut) without an fsync per commit
    if (options.filename !== ":memory:") db.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL")
    db.exec("PRAGMA foreign_keys = ON")
    const prepared = yield* Cache.make({
      capacity: 200,
      timeToLive: Duration.minutes(10),
      lookup: (sql: string) =>
        Effect.try({
          try: () => db.prepare(sql),
          catch: (cause) => sqlError(cause, "Failed to prepare statement", "prepare")
        })
    })
    const cached = (sql: string) => Cache.get(prepared, sql)
    const fresh = (sql: string) =>
      Effect.try({
        try: () => db.prepare(sql),
        catch: (cause) => sqlError(cause, "Failed to prepare statement", "prepare")
      })
    const objects = (statement: StatementSync, params: ReadonlyArray<unknown>, transformRows: Transform | undefined) =>
      Effect.map(rowsOf<object>(statement, params, false), (rows) =>
        transformRows === undefined ? rows : transformRows(rows))
    const connection: SqlConnection.Connection = {
      execute: (sql, params, transformRows) =>
        Effect.flatMap(cached(sql), (statement) =>
          objects(statement, params, transformRows)),
      executeRaw: (sql, params) => Effect.flatMap(cached(sql), (statement) => rawOf(statement, params)),
      executeValues: (sql, params) =>
        Effect.flatMap(cached(sql), (statement) => rowsOf<ReadonlyArray<unknown>>(statement, params, true)),
      executeValuesUnprepared: (sql, params) =>
        Effect.flatMap(fresh(sql), (statement) => rowsOf<ReadonlyArray<unknown>>(statement, params, true)),
      executeUnprepared: (sql, params, transformRows) =>
        Effect.flatMap(fresh(sql), (statement) => objects(statement, params, transformRows)),
      executeStream: () => Stream.die("executeStream is not supported by the node:sqlite client")
    }
    return { connection, isTransaction: () => db.isTransaction }
  })

/** The client, its connection open for the scope's life. */
export const make = (options: SqliteOptions) =>
  Effect.gen(function*() {
    const { connection, isTransaction } = yield* connect(options)
    const acquirers = SqlClient.makeSqliteAcquirers({
      connection: Effect.succeed(connection),
      semaphore: yield* Semaphore.make(1),
      isTransaction: () => isTransaction()
    })
    return yield* SqlClient.make({
      acquirer: acquirers.acquirer,
      borrower: acquirers.borrower,
      transactionAcquirer: acquirers.transactionAcquirer,
      onCommitFailure: acquirers.onCommitFailure,
      ...(acquirers.isTransaction === undefined ? {} : { isTransaction: acquirers.isTransaction }),
      savepoint: (name) => `SAVEPOINT ${name}`,
      releaseSavepoint: (name) => `RELEASE SAVEPOINT ${name}`,
      rollbackSavepoint: (name) => `ROLLBACK TO SAVEPOINT ${name}`,
      compiler: Statement.makeCompilerSqlite(),
      driver: "node:sqlite",
      spanAttributes: [["db.system.name", "sqlite"]]
    })
  })

export const layer = (options: SqliteOptions): Layer.Layer<SqlClient.SqlClient, SqlError.SqlError> =>
  Layer.effect(SqlClient.SqlClient, make(options)).pipe(Layer.provide(Reactivity.layer))
