/**
 * The few pieces of SQL the two engines spell differently, as fragments a repository drops into one
 * statement. Everything else the store runs is written once, in SQL both accept.
 */
import type { SqlClient, Statement } from "effect/sql"

/** SQLite's clock in the store's time format (`toStoredTime`): its `%f` is seconds to the millisecond. */
export const SQLITE_NOW_FORMAT = "%Y-%m-%dT%H:%M:%f000Z"

/**
 * The database's clock. SQLite's is ISO 8601 text in the format its columns hold and `Date` parameters
 * are bound as, so times compare as text.
 */
export const now = (sql: SqlClient.SqlClient): Statement.Fragment =>
  sql.onDialectOrElse({
    sqlite: () => sql`strftime(${SQLITE_NOW_FORMAT}, 'now')`,
    orElse: () => sql`now()`
  })

/** The database's clock `ms` milliseconds from now. */
export const nowPlus = (sql: SqlClient.SqlClient, ms: number): Statement.Fragment =>
  sql.onDialectOrElse({
    sqlite: () => sql`strftime(${SQLITE_NOW_FORMAT}, 'now', ${`${ms / 1000} seconds`})`,
    orElse: () => sql`now() + ${ms} * interval '1 millisecond'`
  })

/** A JSON value as a parameter: JSONB on PostgreSQL, JSON text on SQLite; `null` stays SQL NULL. */
export const json = (sql: SqlClient.SqlClient, value: unknown): Statement.Fragment => {
  const text = value === null ? null : JSON.stringify(value)
  return sql.onDialectOrElse({
    sqlite: () => sql`${text}`,
    orElse: () => sql`${text}::jsonb`
  })
}
