/**
 * A PostgreSQL database of the bench's own, empty at the start of a run and dropped at its end. The
 * request log keeps every row for 30 days: in a shared database it grows with every run (to a gigabyte
 * here after a few sessions of tests and benches), and the log's cost grows with its indexes, so the
 * figures would drift from one run to the next. Databases left by a run that was killed are dropped by the
 * next one.
 */
import { PgClient } from "@effect/sql-pg"
import { Effect, Redacted } from "effect"
import { SqlClient } from "effect/sql"

const PREFIX = "svc_gateway_bench_"

const onServer = <A>(url: string, use: (sql: SqlClient.SqlClient) => Effect.Effect<A, unknown>): Promise<A> =>
  Effect.runPromise(
    Effect.flatMap(SqlClient.SqlClient, use).pipe(
      Effect.provide(PgClient.layer({ url: Redacted.make(url), maxConnections: 1 })),
      Effect.scoped
    )
  )

const withDatabase = (url: string, name: string): string => {
  const next = new URL(url)
  next.pathname = `/${name}`
  return next.toString()
}

export interface BenchDatabase {
  readonly url: string
  readonly drop: () => Promise<void>
}

/** A new database next to the one `url` names (which only has to exist and accept the connection). */
export const freshDatabase = async (url: string): Promise<BenchDatabase> => {
  const name = `${PREFIX}${process.pid}`
  await onServer(url, (sql) =>
    Effect.gen(function*() {
      const stale = yield* sql<{ readonly datname: string }>`SELECT datname FROM pg_database WHERE datname LIKE ${`${PREFIX}%`}`
      for (const { datname } of stale) yield* sql.unsafe(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`)
      yield* sql.unsafe(`CREATE DATABASE "${name}"`)
    }))
  return {
    url: withDatabase(url, name),
    drop: () => onServer(url, (sql) => sql.unsafe(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)).then(() => undefined)
  }
}
