/**
 * The schema: migrations apply on an empty store, the second application is a no-op, and the suite
 * really runs on the store the environment names (the embedded SQLite, or the `DATABASE_URL` server).
 */
import { assert, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { Migrations } from "../../src/store/Migrations.ts"
import { FreshStore, unique, usingPostgres } from "../utils/TestStore.ts"

const appliedMigrations = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql<{ readonly migration_id: number; readonly name: string }>`
    SELECT migration_id, name FROM effect_sql_migrations ORDER BY migration_id`
  return rows.map((row) => [row.migration_id, row.name] as const)
})

const columnsOf = (table: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql.onDialectOrElse({
      sqlite: () =>
        sql<{ readonly column_name: string }>`SELECT name AS column_name FROM pragma_table_info(${table})
          ORDER BY name`,
      orElse: () =>
        sql<{ readonly column_name: string }>`SELECT column_name FROM information_schema.columns
          WHERE table_schema = current_schema() AND table_name = ${table} ORDER BY column_name`
    })
    return rows.map((row) => row.column_name)
  })

/** An index's definition as the engine prints it. */
const indexDefinition = (name: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql.onDialectOrElse({
      sqlite: () =>
        sql<{ readonly def: string }>`SELECT sql AS def FROM sqlite_master WHERE type = 'index' AND name = ${name}`,
      orElse: () =>
        sql<{ readonly def: string }>`SELECT indexdef AS def FROM pg_indexes
          WHERE schemaname = current_schema() AND indexname = ${name}`
    })
    return rows[0]?.def
  })

/** The migrations layer built once more over the current store, as a restarted gateway would. */
const migrateAgain = Layer.build(Layer.fresh(Migrations))

layer(FreshStore())("Migrations", (it) => {
  it.effect("run on the store the environment names", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const engine = sql.onDialectOrElse({ sqlite: () => "sqlite", pg: () => "pg", orElse: () => "other" })
      assert.strictEqual(engine, usingPostgres ? "pg" : "sqlite")
      const [row] = yield* (usingPostgres
        ? sql<{ readonly version: string }>`SELECT version() AS version`
        : sql<{ readonly version: string }>`SELECT 'SQLite ' || sqlite_version() AS version`)
      assert.isDefined(row)
      assert.match(row.version, usingPostgres ? /^PostgreSQL \d+/ : /^SQLite 3\./)
    }))

  it.effect("apply to an empty store: numbered from 1 in order, with the core tables", () =>
    Effect.gen(function*() {
      const applied = yield* appliedMigrations
      assert.deepStrictEqual(applied[0], [1, "orgs_and_keys"])
      assert.deepStrictEqual(applied.map(([id]) => id), applied.map((_, index) => index + 1))
      assert.includeMembers(yield* columnsOf("orgs"), ["created_at", "id", "name"])
      assert.includeMembers(yield* columnsOf("api_keys"), [
        "created_at",
        "expires_at",
        "id",
        "key_hash",
        "last_used_at",
        "name",
        "org_id",
        "prefix",
        "revoked_at"
      ])
      assert.includeMembers(yield* columnsOf("gateway_settings"), ["name", "updated_at", "value"])
    }))

  it.effect("request_log keeps a client's session, indexed for one session's requests newest first", () =>
    Effect.gen(function*() {
      assert.deepInclude(yield* appliedMigrations, [5, "request_log_sessions"])
      // ascending since 0020: rows come in time order, and a page newest first reads it backwards
      assert.deepInclude(yield* appliedMigrations, [20, "request_log_ascending"])
      assert.include(yield* columnsOf("request_log"), "session_id")
      const index = yield* indexDefinition("request_log_org_session")
      assert.isDefined(index)
      assert.match(
        index.replace(/\s+/g, " "),
        /\(org_id, session_id, created_at, id\) WHERE \(?session_id IS NOT NULL\)?$/
      )
    }))

  it.effect("request_log's key: (created_at, id) on PostgreSQL, where older ids keep an index of their own", () =>
    Effect.gen(function*() {
      assert.deepInclude(yield* appliedMigrations, [21, "request_log_time_key"])
      const flat = (definition: string | undefined) => definition?.replace(/\s+/g, " ")
      if (usingPostgres) {
        assert.match(flat(yield* indexDefinition("request_log_pkey")) ?? "", /UNIQUE INDEX .* \(created_at, id\)$/)
        assert.match(
          flat(yield* indexDefinition("request_log_legacy_id")) ?? "",
          /\(id\) WHERE \(\(length\(id\) <> 27\) OR \(substr\(id, 1, 4\) <> 'req_'::text\)\)$/
        )
        assert.isUndefined(yield* indexDefinition("request_log_time"))
        // since 0022 without the id: a page sorts one instant's rows by id itself
        assert.deepInclude(yield* appliedMigrations, [22, "request_log_org_time_narrow"])
        assert.match(flat(yield* indexDefinition("request_log_org_time")) ?? "", /\(org_id, created_at\)$/)
      } else {
        // SQLite's key on id stays (changing it would copy the table), with its time index
        assert.match(flat(yield* indexDefinition("request_log_time")) ?? "", /\(created_at\)$/)
        assert.isUndefined(yield* indexDefinition("request_log_legacy_id"))
        assert.match(flat(yield* indexDefinition("request_log_org_time")) ?? "", /\(org_id, created_at, id\)$/)
      }
    }))

  it.effect("applying them again changes nothing and keeps the data", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const before = yield* appliedMigrations
      const name = unique("kept-org")
      yield* sql`INSERT INTO orgs (id, name) VALUES (${name}, ${name})`
      yield* migrateAgain
      yield* migrateAgain
      assert.deepStrictEqual(yield* appliedMigrations, before)
      const rows = yield* sql<{ readonly name: string }>`SELECT name FROM orgs WHERE id = ${name}`
      assert.deepStrictEqual(rows.map((row) => row.name), [name])
    }))

  it.effect("key hashes are unique and keys need an existing org", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const org = unique("org")
      yield* sql`INSERT INTO orgs (id, name) VALUES (${org}, ${org})`
      const insertKey = (id: string, orgId: string, hash: string) =>
        sql`INSERT INTO api_keys (id, org_id, name, key_hash, prefix) VALUES (${id}, ${orgId}, ${"k"}, ${hash}, ${"sk-svc-abcdef"})`
      const hash = unique("hash")
      yield* insertKey(unique("key"), org, hash)
      const duplicate = yield* Effect.flip(insertKey(unique("key"), org, hash))
      assert.strictEqual(duplicate.reason._tag, "UniqueViolation")
      const orphan = yield* Effect.flip(insertKey(unique("key"), unique("no-such-org"), unique("hash")))
      assert.strictEqual(orphan.reason._tag, "ConstraintError")
    }))
})
