/**
 * Brings the store's schema up to date before anything uses it: PostgreSQL's migrations or SQLite's,
 * whichever engine the client is. Both sets have the same ids and names, so `effect_sql_migrations`
 * reads the same on either.
 */
import { Effect, Layer } from "effect"
import { Migrator, SqlClient } from "effect/sql"
import { PgSchema } from "./PgSchema.ts"
import { SqliteSchema } from "./SqliteSchema.ts"

const migrate = Migrator.make({})

export const Migrations = Layer.effectDiscard(Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* migrate({ loader: sql.onDialectOrElse({ sqlite: () => SqliteSchema, orElse: () => PgSchema }) })
}))
