/**
 * The embedded store (SQLite) keeps its data in `GATEWAY_DATA_DIR` across restarts. Embedded only: this
 * runs the same with or without `DATABASE_URL`, since it is about the file the embedded store writes.
 */
import { assert, describe, it } from "@effect/vitest"
import { Console, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { GatewayConfig } from "../../src/Config.ts"
import { Orgs } from "../../src/orgs/Orgs.ts"
import { DatabaseLive } from "../../src/store/Database.ts"
import { unique } from "../utils/TestStore.ts"

/** A gateway store in `dataDir`, opened by the production layers; closed when the effect ends. */
const inDataDir = (dataDir: string) =>
  Orgs.layer.pipe(
    Layer.provideMerge(DatabaseLive),
    Layer.provide(GatewayConfig.layerFrom({ GATEWAY_DATA_DIR: dataDir }))
  )

const tempDir = Effect.acquireRelease(
  Effect.sync(() => mkdtempSync(join(tmpdir(), "svc-gateway-store-"))),
  (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
)

describe("Database (the embedded store in a data directory)", () => {
  it.effect("an org created before a restart is found after it, and migrations are not re-run", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const appliedCount = Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const rows = yield* sql<
          { readonly n: number }
        >`SELECT CAST(count(*) AS INTEGER) AS n FROM effect_sql_migrations`
        return rows[0]?.n
      })

      const [created, migrations] = yield* Effect.gen(function*() {
        const org = yield* (yield* Orgs).create(unique("durable"))
        return [org, yield* appliedCount] as const
      }).pipe(Effect.provide(inDataDir(dir)))
      assert.isTrue(existsSync(join(dir, "gateway.db")), "the embedded store is <GATEWAY_DATA_DIR>/gateway.db")

      const [found, count, migrationsAfter] = yield* Effect.gen(function*() {
        const orgs = yield* Orgs
        return [yield* orgs.get(created.id), yield* orgs.count, yield* appliedCount] as const
      }).pipe(Effect.provide(inDataDir(dir)))
      assert.deepStrictEqual(found, created)
      assert.strictEqual(count, 1)
      assert.strictEqual(migrationsAfter, migrations)
    }))

  it.effect("a folder holding an earlier release's embedded PostgreSQL gets a note, and a new store beside it", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      mkdirSync(join(dir, "pg"))
      const notes: Array<string> = []
      const console = {
        ...globalThis.console,
        error: (...args: ReadonlyArray<unknown>) => void notes.push(args.join(" "))
      }
      const opened = Effect.gen(function*() {
        return yield* (yield* Orgs).count
      }).pipe(Effect.provide(inDataDir(dir)), Effect.provideService(Console.Console, console))
      assert.strictEqual(yield* opened, 0)
      assert.strictEqual(notes.length, 1)
      assert.include(notes[0], join(dir, "pg"))
      assert.include(notes[0], join(dir, "gateway.db"))
      // once the new store exists the note has been read: it is not repeated at every start
      yield* opened
      assert.strictEqual(notes.length, 1)
    }))

  it.effect("memory:// keeps nothing: a second store starts empty", () =>
    Effect.gen(function*() {
      const countAfterCreate = Effect.gen(function*() {
        const orgs = yield* Orgs
        const before = yield* orgs.count
        yield* orgs.create(unique("ephemeral"))
        return before
      }).pipe(Effect.provide(inDataDir("memory://")))
      assert.strictEqual(yield* countAfterCreate, 0)
      assert.strictEqual(yield* countAfterCreate, 0)
    }))
})
