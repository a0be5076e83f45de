/**
 * The real launcher (`bin/svc-gateway.mjs`, what `npx svc-gateway` runs) as a child process on a data
 * folder of its own: a run writes to disk, the next run reads it back, the lock is gone after each run,
 * and exit codes reach the shell.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { execFile } from "node:child_process"
import { existsSync, mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { lockFilePath } from "../../src/store/DataDirLock.ts"

const LAUNCHER = fileURLToPath(new URL("../../bin/svc-gateway.mjs", import.meta.url))

/** The environment without anything that would send the CLI elsewhere than `dataDir`. */
const envFor = (dataDir: string): NodeJS.ProcessEnv => {
  const { DATABASE_URL: _db, GATEWAY_URL: _url, GATEWAY_ADMIN_TOKEN: _token, ...rest } = process.env
  return { ...rest, GATEWAY_DATA_DIR: dataDir, NO_COLOR: "1" }
}

const launch = (dataDir: string, ...args: ReadonlyArray<string>) =>
  Effect.callback<{ readonly code: number; readonly stdout: string; readonly stderr: string }>((resume) => {
    execFile(
      process.execPath,
      [LAUNCHER, ...args],
      { env: envFor(dataDir), timeout: 60_000 },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === "number" ? error.code : -1
        resume(Effect.succeed({ code, stdout, stderr }))
      }
    )
  })

describe("bin/svc-gateway.mjs", () => {
  it.live("orgs create, then orgs list in a second process, on a data folder on disk", () =>
    Effect.gen(function*() {
      const dataDir = join(mkdtempSync(join(tmpdir(), "svc-gateway-cli-")), "data")
      const created = yield* launch(dataDir, "orgs", "create", "--name", "launched")
      assert.strictEqual(created.code, 0, created.stderr)
      assert.include(created.stdout, "Created organization 'launched'.")
      // the first run made the store: it says where, and how to reach the gateway's own instead
      assert.include(
        created.stderr,
        `Note: there was no gateway store at ${dataDir}, so the CLI made a new, empty one there.`
      )
      assert.include(created.stderr, "--url http://127.0.0.1:8080")
      const id = created.stdout.match(/org_[0-9A-Za-z]{20}/)?.[0]
      assert.isDefined(id)
      assert.isFalse(existsSync(lockFilePath(dataDir)), "the lock is released when the run ends")

      const listed = yield* launch(dataDir, "orgs", "list", "--json")
      assert.strictEqual(listed.code, 0, listed.stderr)
      assert.strictEqual(listed.stderr, "", "a store that exists is opened without a note")
      const list: unknown = JSON.parse(listed.stdout)
      assert.deepInclude(list, { object: "list" })
      assert.match(listed.stdout, new RegExp(`"id": "${id}",\\s+"name": "launched"`))
      assert.isFalse(existsSync(lockFilePath(dataDir)))
    }), { timeout: 120_000 })

  it.live(
    "usage mistakes and not-found reach the shell as exit codes 2 and 1, without a stack",
    () =>
      Effect.gen(function*() {
        const dataDir = join(mkdtempSync(join(tmpdir(), "svc-gateway-cli-")), "data")
        const usage = yield* launch(dataDir, "keys", "create", "--org", "org_1")
        assert.strictEqual(usage.code, 2)
        assert.include(usage.stderr, "Error: Missing required flag: --name")
        assert.isFalse(existsSync(dataDir), "a usage mistake never opens the store")

        const missing = yield* launch(dataDir, "keys", "list", "--org", "org_nope")
        assert.strictEqual(missing.code, 1)
        const [note, error] = missing.stderr.trim().split("\n")
        assert.match(note!, /^Note: there was no gateway store at /)
        assert.strictEqual(error, "Error: No organization with id 'org_nope'.")
      }),
    { timeout: 120_000 }
  )
})
