/**
 * The SQL client every repository uses: PostgreSQL through `@effect/sql-pg` when `DATABASE_URL` is set,
 * otherwise the embedded store, SQLite (Node's built-in `node:sqlite`) in `GATEWAY_DATA_DIR`. Both run
 * their migrations before the layer is ready, so code above it never sees an unmigrated schema.
 */
import { PgClient } from "@effect/sql-pg"
import { Console, Effect, Layer, Option } from "effect"
import type { SqlClient, SqlError } from "effect/sql"
import { existsSync } from "node:fs"
import { join } from "node:path"
import { GatewayConfig } from "../Config.ts"
import { ChangeFeed } from "./ChangeFeed.ts"
import { Migrations } from "./Migrations.ts"
import { privateDir, privateFile, tightenFiles } from "./PrivateFiles.ts"
import * as SqliteClient from "./SqliteClient.ts"

/** The embedded store's file in a data folder. */
export const sqliteFile = (dataDir: string): string => join(dataDir, "gateway.db")

/**
 * The embedded store in `dataDir` (kept across restarts), or in memory for `memory://`. Releases before
 * 0.2 kept an embedded PostgreSQL (PGlite) in `<dataDir>/pg`; its data is not read, and the start says so.
 */
export const sqliteLayer = (dataDir: string): Layer.Layer<SqlClient.SqlClient, SqlError.SqlError> =>
  Layer.unwrap(Effect.gen(function*() {
    if (dataDir.startsWith("memory://")) return SqliteClient.layer({ filename: ":memory:" })
    const file = sqliteFile(dataDir)
    if (!existsSync(file) && existsSync(join(dataDir, "pg"))) {
      yield* Console.error(
        `Note: ${join(dataDir, "pg")} holds an earlier release's embedded PostgreSQL store, which this release ` +
          `does not read; the embedded store is now ${file}.`
      )
    }
    // SQLite gives its WAL and shared-memory files the database file's mode
    yield* Effect.sync(() => {
      privateDir(dataDir)
      privateFile(file)
      tightenFiles([`${file}-wal`, `${file}-shm`])
    })
    return SqliteClient.layer({ filename: file })
  }))

export const postgresLayer = (url: PgClient.PgClientConfig["url"]) => PgClient.layer({ url, maxConnections: 10 })

/** The client, migrated, with the change feed over it (LISTEN/NOTIFY on PostgreSQL). */
const migrated = <A extends SqlClient.SqlClient, E, R>(client: Layer.Layer<A, E, R>) =>
  Layer.provideMerge(ChangeFeed.layer, Layer.provideMerge(Migrations, client))

/** The store the settings ask for, migrated. */
export const DatabaseLive = Layer.unwrap(Effect.gen(function*() {
  const config = yield* GatewayConfig
  return Option.match(config.databaseUrl, {
    onNone: () => migrated(sqliteLayer(config.dataDir)),
    onSome: (url) => migrated(postgresLayer(url))
  })
}))
