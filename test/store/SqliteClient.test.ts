/**
 * The `node:sqlite` client (the embedded store's engine): statements and
 * parameters, inserts with RETURNING and ON CONFLICT, transactions that commit and roll back, nested
 * ones as savepoints, errors as typed `SqlError`s with SQLite's reason, and data kept on disk across
 * reopenings (WAL).
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit } from "effect"
import { SqlClient } from "effect/sql"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as Sqlite from "../../src/store/SqliteClient.ts"

const setup = (sql: SqlClient.SqlClient) =>
  sql`CREATE TABLE IF NOT EXISTS orgs (id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE, created_at TEXT NOT NULL)`

describe("SqliteClient over node:sqlite", () => {
  it.effect("statements, parameters, RETURNING and ON CONFLICT", () =>
    Effect.scoped(
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        yield* setup(sql)
        const inserted = yield* sql<{ id: string; name: string }>`INSERT INTO orgs ${
          sql.insert({ id: "org_1", name: "acme", created_at: "2026-11-24T00:00:00Z" })
        } RETURNING id, name`
        assert.deepStrictEqual(inserted, [{ id: "org_1", name: "acme" }])
        yield* sql`INSERT INTO orgs ${
          sql.insert({ id: "org_2", name: "acme", created_at: "x" })
        } ON CONFLICT (name) DO NOTHING`
        const rows = yield* sql<{ n: number }>`SELECT count(*) AS n FROM orgs WHERE name = ${"acme"}`
        assert.strictEqual(rows[0]?.n, 1)
        const some = yield* sql<{ id: string }>`SELECT id FROM orgs WHERE ${sql.in("id", ["org_1", "org_9"])}`
        assert.deepStrictEqual(some.map((row) => row.id), ["org_1"])
      }).pipe(Effect.provide(Sqlite.layer({ filename: ":memory:" })))
    ))

  it.effect("a transaction commits or rolls back whole; a nested one is a savepoint", () =>
    Effect.scoped(
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        yield* setup(sql)
        const failed = yield* Effect.exit(sql.withTransaction(Effect.gen(function*() {
          yield* sql`INSERT INTO orgs ${sql.insert({ id: "org_a", name: "a", created_at: "x" })}`
          return yield* Effect.fail("stop")
        })))
        assert.isTrue(Exit.isFailure(failed))
        assert.deepStrictEqual(yield* sql`SELECT id FROM orgs`, [])
        yield* sql.withTransaction(Effect.gen(function*() {
          yield* sql`INSERT INTO orgs ${sql.insert({ id: "org_b", name: "b", created_at: "x" })}`
          yield* Effect.exit(sql.withTransaction(Effect.gen(function*() {
            yield* sql`INSERT INTO orgs ${sql.insert({ id: "org_c", name: "c", created_at: "x" })}`
            return yield* Effect.fail("inner")
          })))
        }))
        assert.deepStrictEqual((yield* sql<{ id: string }>`SELECT id FROM orgs ORDER BY id`).map((row) => row.id), [
          "org_b"
        ])
      }).pipe(Effect.provide(Sqlite.layer({ filename: ":memory:" })))
    ))

  it.effect("a failing statement is a typed SqlError with SQLite's reason", () =>
    Effect.scoped(
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        yield* setup(sql)
        yield* sql`INSERT INTO orgs ${sql.insert({ id: "org_1", name: "acme", created_at: "x" })}`
        const duplicate = yield* Effect.flip(
          sql`INSERT INTO orgs ${sql.insert({ id: "org_1", name: "other", created_at: "x" })}`
        )
        assert.strictEqual(duplicate._tag, "SqlError")
        assert.strictEqual(duplicate.reason._tag, "ConstraintError")
        const bad = yield* Effect.flip(sql`SELECT nope FROM orgs`)
        assert.strictEqual(bad._tag, "SqlError")
      }).pipe(Effect.provide(Sqlite.layer({ filename: ":memory:" })))
    ))

  it.effect("dates bind as the store's time text, which sorts as time does; booleans bind as 0 and 1", () =>
    Effect.scoped(
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        yield* sql`CREATE TABLE t (at TEXT NOT NULL, flag INTEGER NOT NULL) STRICT`
        const times = [
          new Date("2026-11-24T10:00:00.5Z"),
          new Date("2026-11-24T09:59:59.999Z"),
          new Date("2026-11-24T10:00:00Z")
        ]
        for (const [i, at] of times.entries()) yield* sql`INSERT INTO t VALUES (${at}, ${i === 0})`
        const rows = yield* sql<{ at: string; flag: number }>`SELECT at, flag FROM t ORDER BY at`
        assert.deepStrictEqual(rows, [
          { at: "2026-11-24T09:59:59.999000Z", flag: 0 },
          { at: "2026-11-24T10:00:00.000000Z", flag: 0 },
          { at: "2026-11-24T10:00:00.500000Z", flag: 1 }
        ])
        const later = yield* sql<{ n: number }>`SELECT count(*) AS n FROM t WHERE at >= ${new Date(
          "2026-11-24T10:00:00Z"
        )}`
        assert.strictEqual(later[0]?.n, 2)
      }).pipe(Effect.provide(Sqlite.layer({ filename: ":memory:" })))
    ))

  it.effect("a file keeps its data when it is opened again, in WAL mode", () =>
    Effect.gen(function*() {
      const dir = mkdtempSync(join(tmpdir(), "svc-gateway-sqlite-"))
      const filename = join(dir, "store.db")
      try {
        yield* Effect.scoped(
          Effect.gen(function*() {
            const sql = yield* SqlClient.SqlClient
            yield* setup(sql)
            yield* sql`INSERT INTO orgs ${sql.insert({ id: "org_1", name: "kept", created_at: "x" })}`
          }).pipe(Effect.provide(Sqlite.layer({ filename })))
        )
        const names = yield* Effect.scoped(
          Effect.gen(function*() {
            const sql = yield* SqlClient.SqlClient
            const [mode] = yield* sql<{ journal_mode: string }>`PRAGMA journal_mode`
            assert.strictEqual(mode?.journal_mode, "wal")
            return yield* sql<{ name: string }>`SELECT name FROM orgs`
          }).pipe(Effect.provide(Sqlite.layer({ filename })))
        )
        assert.deepStrictEqual(names, [{ name: "kept" }])
      } finally {
        rmSync(dir, { recursive: true, force: true })
      }
    }))
})
