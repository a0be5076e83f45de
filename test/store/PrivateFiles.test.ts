/**
 * The data folder is the gateway's alone whatever the umask: with a umask that would leave everything
 * open to every local user (000), the folder is 0700 and the store's files (the database, its WAL and
 * shared memory, the lock, the request log's spill) 0600; a store left open by an older release is
 * tightened when the gateway starts on it.
 */
import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { appendRowsSync } from "../../src/logs/RequestLogSpill.ts"
import { sqliteFile, sqliteLayer } from "../../src/store/Database.ts"
import { acquireDataDirLock, lockFilePath } from "../../src/store/DataDirLock.ts"

const mode = (path: string) => statSync(path).mode & 0o777

/** Runs `f` with the process's umask set to `mask`, and puts the old one back. */
const withUmask = <A, E>(mask: number, effect: Effect.Effect<A, E>) =>
  Effect.acquireUseRelease(
    Effect.sync(() => process.umask(mask)),
    () => effect,
    (old) => Effect.sync(() => process.umask(old))
  )

const openStore = (dataDir: string) =>
  Effect.scoped(Effect.gen(function*() {
    yield* acquireDataDirLock(dataDir)
    const sql = Context.get(yield* Layer.build(sqliteLayer(dataDir)), SqlClient.SqlClient)
    yield* sql`CREATE TABLE IF NOT EXISTS t (x INTEGER)`
    yield* sql`INSERT INTO t VALUES (1)`
    // while the store is open: the lock and SQLite's journal files are there
    return {
      dir: mode(dataDir),
      db: mode(sqliteFile(dataDir)),
      wal: mode(`${sqliteFile(dataDir)}-wal`),
      shm: mode(`${sqliteFile(dataDir)}-shm`),
      lock: mode(lockFilePath(dataDir))
    }
  }))

describe("the data folder's permissions", () => {
  it.effect("0700 and 0600 under a umask of 000", () =>
    Effect.gen(function*() {
      const root = mkdtempSync(join(tmpdir(), "svc-gateway-private-"))
      const dataDir = join(root, "data")
      const modes = yield* withUmask(0o000, openStore(dataDir))
      assert.deepStrictEqual(modes, { dir: 0o700, db: 0o600, wal: 0o600, shm: 0o600, lock: 0o600 })
      const spill = join(dataDir, "spill", "request-log-spill.ndjson")
      yield* withUmask(0o000, Effect.sync(() => appendRowsSync(spill, [])))
      assert.strictEqual(mode(join(dataDir, "spill")), 0o700)
      rmSync(root, { recursive: true, force: true })
    }))

  it.effect("a store an older release left readable by all is tightened at start", () =>
    Effect.gen(function*() {
      const root = mkdtempSync(join(tmpdir(), "svc-gateway-private-"))
      const dataDir = join(root, "data")
      mkdirSync(dataDir)
      chmodSync(dataDir, 0o755)
      writeFileSync(sqliteFile(dataDir), "")
      chmodSync(sqliteFile(dataDir), 0o644)
      const modes = yield* openStore(dataDir)
      assert.strictEqual(modes.dir, 0o700)
      assert.strictEqual(modes.db, 0o600)
      rmSync(root, { recursive: true, force: true })
    }))
})
