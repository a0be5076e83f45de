/**
 * One process at a time per embedded data folder. SQLite itself lets processes share a file, but the
 * gateway does not expect to: it caches keys and tool settings and batches writes as the folder's only
 * user, so a second gateway (or the CLI writing beside one) would act on stale state. Whoever opens the
 * folder first holds `<dataDir>/gateway.lock`, a file holding its pid; a lock left by a dead process is
 * taken over. PostgreSQL (`DATABASE_URL`) and `memory://` stores need no lock.
 */
import { Effect, Layer, Option, Schema, type Scope } from "effect"
import { linkSync, readFileSync, unlinkSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { GatewayConfig } from "../Config.ts"
import { PRIVATE_FILE, privateDir } from "./PrivateFiles.ts"

export const LOCK_FILE = "gateway.lock"

export const lockFilePath = (dataDir: string): string => join(dataDir, LOCK_FILE)

/** A live process holds the lock. */
export class LockHeld extends Schema.TaggedError<LockHeld>()("LockHeld", {
  pid: Schema.Number
}) {}

/** The lock file could not be read or written (permissions, read-only disk). */
export class LockIoFailed extends Schema.TaggedError<LockIoFailed>()("LockIoFailed", {
  message: Schema.String
}) {}

export class DataDirLockError extends Schema.TaggedError<DataDirLockError>()("DataDirLockError", {
  dataDir: Schema.String,
  lockFile: Schema.String,
  reason: Schema.Union([LockHeld, LockIoFailed])
}) {
  override get message(): string {
    const reason = this.reason
    switch (reason._tag) {
      case "LockHeld":
        return `The data folder ${this.dataDir} is in use by another svc-gateway process (pid ${reason.pid}); ` +
          `its embedded store can be opened by one process at a time. Stop that process first ` +
          `(if no such process is running, delete ${this.lockFile}).`
      case "LockIoFailed":
        return `Could not lock the data folder ${this.dataDir} (${this.lockFile}): ${reason.message}`
    }
  }
}

const errorCode = (error: unknown): string | undefined =>
  typeof error === "object" && error !== null && "code" in error && typeof error.code === "string"
    ? error.code
    : undefined

/** `kill(pid, 0)` sends nothing; it only asks whether the process exists. EPERM: it exists, not ours. */
const isAlive = (pid: number): boolean => {
  // pid 0 and negatives address process groups, never a lock holder
  if (!Number.isSafeInteger(pid) || pid <= 0) return false
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return errorCode(error) === "EPERM"
  }
}

/** The holder's pid; `undefined` when the file is gone, `null` when it holds no pid (not written by us). */
const readHolder = (file: string): number | null | undefined => {
  try {
    const text = readFileSync(file, "utf8").trim()
    return /^\d+$/.test(text) ? Number(text) : null
  } catch (error) {
    if (errorCode(error) === "ENOENT") return undefined
    throw error
  }
}

/**
 * Creates the lock file with its content already in place: the pid goes to a private file that is then
 * hard-linked to the lock name, which fails if the name exists. A reader so never sees an empty lock.
 */
const createExclusive = (file: string): boolean => {
  const temp = `${file}.${process.pid}.${Date.now()}.tmp`
  writeFileSync(temp, `${process.pid}\n`, { mode: PRIVATE_FILE })
  try {
    linkSync(temp, file)
    return true
  } catch (error) {
    if (errorCode(error) === "EEXIST") return false
    throw error
  } finally {
    unlinkSync(temp)
  }
}

/**
 * Takes the lock or says who holds it. A stale lock (dead pid, or no pid) is removed and the create is
 * retried. Two processes taking over the same stale lock in the same instant could both remove it;
 * acceptable for a single-user embedded store, where only a crash leaves a stale lock behind.
 */
const takeLock = (dataDir: string, file: string): LockHeld | LockIoFailed | undefined => {
  privateDir(dataDir)
  for (let attempt = 0; attempt < 5; attempt++) {
    if (createExclusive(file)) return undefined
    const holder = readHolder(file)
    if (holder === undefined) continue // released meanwhile: try again
    if (holder !== null && isAlive(holder)) return new LockHeld({ pid: holder })
    try {
      unlinkSync(file)
    } catch (error) {
      if (errorCode(error) !== "ENOENT") throw error
    }
  }
  return new LockIoFailed({ message: "the lock file kept changing while it was being taken; try again" })
}

/** Removes the lock only if it is still ours: a lock taken over meanwhile belongs to someone else. */
const releaseLock = (file: string): void => {
  try {
    if (readHolder(file) === process.pid) unlinkSync(file)
  } catch {
    // the lock dies with the process anyway: a later start sees a dead pid and takes it over
  }
}

/** Holds the lock on `dataDir` for the current scope; fails if another live process holds it. */
export const acquireDataDirLock = (dataDir: string): Effect.Effect<void, DataDirLockError, Scope.Scope> => {
  const lockFile = lockFilePath(dataDir)
  const fail = (reason: LockHeld | LockIoFailed) => new DataDirLockError({ dataDir, lockFile, reason })
  return Effect.acquireRelease(
    Effect.try({
      try: () => takeLock(dataDir, lockFile),
      catch: (error) => fail(new LockIoFailed({ message: error instanceof Error ? error.message : String(error) }))
    }).pipe(Effect.flatMap((refused) => refused === undefined ? Effect.void : Effect.fail(fail(refused)))),
    () => Effect.sync(() => releaseLock(lockFile))
  ).pipe(Effect.withSpan("DataDirLock.acquire", { attributes: { dataDir } }))
}

/** The folder that needs a lock under these settings, if any: only an embedded store on disk does. */
export const lockedDataDir = (config: {
  readonly databaseUrl: Option.Option<unknown>
  readonly dataDir: string
}): Option.Option<string> =>
  Option.isSome(config.databaseUrl) || config.dataDir.startsWith("memory://")
    ? Option.none()
    : Option.some(config.dataDir)

/**
 * The lock for the configured store, held until the layer is released. Build it before the store
 * (`DatabaseLive`) so no second process ever opens the folder, and release it after the store closed.
 */
export const DataDirLockLive: Layer.Layer<never, DataDirLockError, GatewayConfig> = Layer.effectDiscard(
  Effect.gen(function*() {
    const dataDir = lockedDataDir(yield* GatewayConfig)
    if (Option.isSome(dataDir)) yield* acquireDataDirLock(dataDir.value)
  })
)
