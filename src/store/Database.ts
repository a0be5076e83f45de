/**
 * The SQL client every repository uses: PostgreSQL through `@effect/sql-pg` when `DATABASE_URL` is set,
 * otherwise embedded PostgreSQL (PGlite) in `GATEWAY_DATA_DIR`. Both run the same migrations before the
 * layer is ready, so code above it never sees an unmigrated schema.
 */
import { NodeServices } from "@effect/platform-node"
import { PgClient } from "@effect/sql-pg"
import { Effect, Layer, Option } from "effect"
import type { SqlClient } from "effect/sql"
import { mkdirSync } from "node:fs"
import { GatewayConfig } from "../Config.ts"
import { Migrations } from "./Migrations.ts"
import { pgliteDuplex } from "./PgliteDuplex.ts"

/**
 * Embedded Postgres in `dataDir` (kept across restarts), or in memory for `memory://` or undefined.
 * PGlite's modules load only here: a gateway on PostgreSQL never holds their code (a few MiB).
 */
export const pgliteLayer = (dataDir: string | undefined) =>
  Layer.unwrap(Effect.gen(function*() {
    const db = yield* Effect.acquireRelease(
      Effect.promise(async () => {
        if (dataDir !== undefined && !dataDir.startsWith("memory://")) mkdirSync(dataDir, { recursive: true })
        const { PGlite } = await import("@electric-sql/pglite")
        return PGlite.create(dataDir)
      }),
      (db) => Effect.promise(() => db.close())
    )
    return PgClient.layer({
      stream: pgliteDuplex(db),
      ssl: false,
      username: "postgres",
      database: "postgres",
      maxConnections: 1
    })
  }))

export const postgresLayer = (url: PgClient.PgClientConfig["url"]) =>
  PgClient.layer({ url, maxConnections: 10 })

const migrated = <A extends SqlClient.SqlClient, E, R>(client: Layer.Layer<A, E, R>) =>
  Migrations.pipe(Layer.provide(NodeServices.layer), Layer.provideMerge(client))

/** The store the settings ask for, migrated. */
export const DatabaseLive = Layer.unwrap(Effect.gen(function*() {
  const config = yield* GatewayConfig
  return Option.match(config.databaseUrl, {
    onNone: () =>
      migrated(pgliteLayer(config.dataDir.startsWith("memory://") ? config.dataDir : `${config.dataDir}/pg`)),
    onSome: (url) => migrated(postgresLayer(url))
  })
}))
