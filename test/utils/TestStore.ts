/**
 * The store the store suite runs against: the embedded store (SQLite) in memory, or the PostgreSQL server named by
 * `DATABASE_URL` when it is set (CI runs the suite both ways). Layers here go through the production
 * `DatabaseLive`, so migrations run exactly as they do in the gateway.
 *
 * The PostgreSQL database is shared between runs: tests on `StoreLive` create what they need under
 * unique names. `FreshStore` gives a test an empty store of its own (on PostgreSQL: a new schema,
 * selected with `search_path` and dropped afterwards) for what is global by nature, such as the
 * migrations table or the admin token setting.
 */
import { PgClient } from "@effect/sql-pg"
import { Effect, Layer, Redacted } from "effect"
import { SqlClient, type SqlError } from "effect/sql"
import { GatewayConfig } from "../../src/Config.ts"
import { randomBase62 } from "../../src/Ids.ts"
import type { AdminError } from "../../src/kernel/AdminError.ts"
import { ApiKeys } from "../../src/keys/ApiKeys.ts"
import { Orgs } from "../../src/orgs/Orgs.ts"
import { DatabaseLive } from "../../src/store/Database.ts"

export const databaseUrl: string | undefined = process.env.DATABASE_URL || undefined
export const usingPostgres = databaseUrl !== undefined

/** Settings for a store test: the in-memory embedded store unless `DATABASE_URL` is set; `extra` adds or overrides. */
export const storeEnv = (extra: Record<string, string> = {}): Record<string, string> => ({
  GATEWAY_DATA_DIR: "memory://",
  ...(databaseUrl === undefined ? {} : { DATABASE_URL: databaseUrl }),
  ...extra
})

/** A name no other run or test uses, for rows in the shared database. */
export const unique = (label: string): string => `${label}-${randomBase62(10)}`

/** The migrated shared store, with the settings it was built from. */
export const StoreLive = DatabaseLive.pipe(Layer.provideMerge(GatewayConfig.layerFrom(storeEnv())))

/** Orgs and ApiKeys over the shared store (SqlClient and GatewayConfig stay visible to tests). */
export const RepositoriesLive = ApiKeys.layer.pipe(
  Layer.provideMerge(Orgs.layer),
  Layer.provideMerge(StoreLive)
)

/** `url` with its session's `search_path` set to `schema` only. */
const withSearchPath = (url: string, schema: string): string => {
  const parsed = new URL(url)
  parsed.searchParams.set("options", `-c search_path=${schema}`)
  return parsed.toString()
}

/** A new, migrated store nobody else uses; its PostgreSQL schema is dropped when the layer closes. */
export const FreshStore = (extra: Record<string, string> = {}) =>
  Layer.unwrap(Effect.gen(function*() {
    if (databaseUrl === undefined) {
      return DatabaseLive.pipe(Layer.provideMerge(GatewayConfig.layerFrom(storeEnv(extra))))
    }
    const schema = `test_${randomBase62(16).toLowerCase()}`
    const admin = PgClient.layer({ url: Redacted.make(databaseUrl), maxConnections: 1 })
    const onServer = <A, E>(statement: (sql: SqlClient.SqlClient) => Effect.Effect<A, E>) =>
      Effect.gen(function*() {
        return yield* statement(yield* SqlClient.SqlClient)
      }).pipe(Effect.provide(admin))
    yield* Effect.acquireRelease(
      onServer((sql) => sql`CREATE SCHEMA ${sql(schema)}`),
      () => onServer((sql) => sql`DROP SCHEMA ${sql(schema)} CASCADE`).pipe(Effect.orDie)
    )
    return DatabaseLive.pipe(
      Layer.provideMerge(
        GatewayConfig.layerFrom(storeEnv({ ...extra, DATABASE_URL: withSearchPath(databaseUrl, schema) }))
      )
    )
  }))

/** The entity and id of an `AdminError` NotFound; fails the test on any other error. */
export const notFoundOf = (error: AdminError | SqlError.SqlError): { readonly entity: string; readonly id: string } => {
  if (error._tag !== "AdminError" || error.reason._tag !== "NotFound") {
    throw new Error(`expected AdminError NotFound, got ${error._tag} ${error.reason._tag}`)
  }
  return { entity: error.reason.entity, id: error.reason.id }
}
