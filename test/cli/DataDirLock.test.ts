/**
 * The data folder lock: one holder at a time, the holder's pid in `<dataDir>/gateway.lock`, stale locks
 * of dead processes taken over, released on close; and the CLI refusing the store while it is held.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Layer, Option, Redacted, Scope } from "effect"
import { spawn, spawnSync } from "node:child_process"
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { AdminClient } from "../../src/cli/AdminClient.ts"
import { GatewayConfig } from "../../src/Config.ts"
import {
  acquireDataDirLock,
  DataDirLockError,
  DataDirLockLive,
  lockedDataDir,
  lockFilePath
} from "../../src/store/DataDirLock.ts"
import { runArgs } from "./CliHarness.ts"

const tempDir = () => mkdtempSync(join(tmpdir(), "svc-gateway-lock-"))

/** The pid of a process that has exited: nothing runs under it any more (barring reuse, not in a test). */
const deadPid = (): number => {
  const child = spawnSync(process.execPath, ["-e", ""])
  assert.isNumber(child.pid)
  return child.pid
}

/** A live process that is not us: a sleeping child, killed when the scope closes. */
const livePid = Effect.acquireRelease(
  Effect.sync(() => spawn(process.execPath, ["-e", "setTimeout(() => {}, 60000)"], { stdio: "ignore" })),
  (child) => Effect.sync(() => void child.kill())
).pipe(Effect.map((child) => child.pid!))

const holder = (dataDir: string) => readFileSync(lockFilePath(dataDir), "utf8").trim()

describe("DataDirLock", () => {
  it.effect("holds <dataDir>/gateway.lock with our pid, and removes it on release", () =>
    Effect.gen(function*() {
      const dataDir = join(tempDir(), "nested", "data")
      const scope = yield* Scope.make()
      yield* acquireDataDirLock(dataDir).pipe(Scope.provide(scope))
      assert.strictEqual(holder(dataDir), String(process.pid))
      yield* Scope.close(scope, Exit.void)
      assert.isFalse(existsSync(lockFilePath(dataDir)))
    }))

  it.effect("a second lock on the same folder fails, naming the holder's pid and the lock file", () =>
    Effect.gen(function*() {
      const dataDir = tempDir()
      yield* acquireDataDirLock(dataDir)
      const error = yield* Effect.flip(acquireDataDirLock(dataDir))
      assert.instanceOf(error, DataDirLockError)
      assert.deepStrictEqual(error.reason._tag === "LockHeld" ? error.reason.pid : undefined, process.pid)
      assert.include(
        error.message,
        `The data folder ${dataDir} is in use by another svc-gateway process (pid ${process.pid})`
      )
      assert.include(error.message, lockFilePath(dataDir))
      // the embedded store is SQLite: the message names no engine it does not run
      assert.include(error.message, "its embedded store can be opened by one process at a time")
      assert.strictEqual(holder(dataDir), String(process.pid)) // the refused attempt left it alone
    }))

  it.effect("a lock held by another live process is refused", () =>
    Effect.gen(function*() {
      const dataDir = tempDir()
      const pid = yield* livePid
      writeFileSync(lockFilePath(dataDir), `${pid}\n`)
      const error = yield* Effect.flip(acquireDataDirLock(dataDir))
      assert.include(error.message, `(pid ${pid})`)
      assert.strictEqual(holder(dataDir), String(pid))
    }))

  it.effect("a stale lock of a dead pid is taken over", () =>
    Effect.gen(function*() {
      const dataDir = tempDir()
      writeFileSync(lockFilePath(dataDir), `${deadPid()}\n`)
      yield* acquireDataDirLock(dataDir)
      assert.strictEqual(holder(dataDir), String(process.pid))
    }))

  it.effect("a lock file without a pid (not one of ours) is taken over", () =>
    Effect.gen(function*() {
      const dataDir = tempDir()
      writeFileSync(lockFilePath(dataDir), "")
      yield* acquireDataDirLock(dataDir)
      assert.strictEqual(holder(dataDir), String(process.pid))
    }))

  it.effect("release leaves a lock that is no longer ours alone", () =>
    Effect.gen(function*() {
      const dataDir = tempDir()
      const scope = yield* Scope.make()
      yield* acquireDataDirLock(dataDir).pipe(Scope.provide(scope))
      writeFileSync(lockFilePath(dataDir), "12345\n")
      yield* Scope.close(scope, Exit.void)
      assert.strictEqual(holder(dataDir), "12345")
    }))

  it.effect("only an embedded store on disk is locked: not memory://, not PostgreSQL", () =>
    Effect.gen(function*() {
      const url = Option.some(Redacted.make("postgres://x"))
      assert.deepStrictEqual(lockedDataDir({ databaseUrl: Option.none(), dataDir: "./.data" }), Option.some("./.data"))
      assert.deepStrictEqual(lockedDataDir({ databaseUrl: Option.none(), dataDir: "memory://" }), Option.none())
      assert.deepStrictEqual(lockedDataDir({ databaseUrl: url, dataDir: "./.data" }), Option.none())

      const dataDir = tempDir()
      const withPostgres = GatewayConfig.layerFrom({
        GATEWAY_DATA_DIR: dataDir,
        DATABASE_URL: "postgres://127.0.0.1:9/x"
      })
      yield* Layer.build(DataDirLockLive.pipe(Layer.provide(withPostgres)))
      assert.isFalse(existsSync(lockFilePath(dataDir)))
      yield* Layer.build(DataDirLockLive.pipe(Layer.provide(GatewayConfig.layerFrom({ GATEWAY_DATA_DIR: dataDir }))))
      assert.strictEqual(holder(dataDir), String(process.pid))
    }))
})

describe("the CLI and a held lock", () => {
  /** The store as `main.ts` opens it, on `dataDir`, with the embedded database. */
  const storeOn = (dataDir: string) =>
    AdminClient.layerStoreWith(GatewayConfig.layerFrom({ GATEWAY_DATA_DIR: dataDir, PORT: "8123" }))

  it.effect("refuses direct access with a message that points to --url; exit 1", () =>
    Effect.gen(function*() {
      const dataDir = tempDir()
      yield* acquireDataDirLock(dataDir) // as the running server would
      for (const args of [["orgs", "list"], ["keys", "create", "--org", "org_1", "--name", "k", "--json"]]) {
        const result = yield* runArgs(args, { store: storeOn(dataDir) })
        assert.strictEqual(result.code, 1)
        assert.strictEqual(result.stdout, "")
        assert.include(
          result.stderr,
          `The data folder ${dataDir} is in use by another svc-gateway process (pid ${process.pid})`
        )
        assert.include(result.stderr, "pass --url http://127.0.0.1:8123 --admin-token <token>")
        assert.include(result.stderr, "GATEWAY_URL and GATEWAY_ADMIN_TOKEN")
        assert.include(result.stderr, "or stop the server")
        assert.notInclude(result.stderr, "PostgreSQL")
        assert.notInclude(result.stderr, "    at ")
      }
      assert.isFalse(existsSync(join(dataDir, "pg")), "the database folder was never opened")
    }))

  it.effect("takes the lock while it works and gives it back after", () =>
    Effect.gen(function*() {
      const dataDir = tempDir()
      writeFileSync(lockFilePath(dataDir), `${deadPid()}\n`) // a server that crashed
      const result = yield* runArgs(["orgs", "create", "--name", "after-crash"], { store: storeOn(dataDir) })
      assert.strictEqual(result.code, 0, result.stderr)
      assert.isFalse(existsSync(lockFilePath(dataDir)))
      const listed = yield* runArgs(["orgs", "list"], { store: storeOn(dataDir) })
      assert.include(listed.stdout, "after-crash")
    }), { timeout: 120_000 })
})
