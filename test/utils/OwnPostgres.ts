/**
 * A PostgreSQL server of a test's own, on a spare loopback port with its data in a temporary folder,
 * for tests that break their store (stop it under load, start it again): never the shared server on
 * 5432. Built from the machine's Debian PostgreSQL binaries; run as the `postgres` user when the tests
 * run as root, since PostgreSQL refuses root.
 */
import { execFileSync, spawnSync } from "node:child_process"
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { refusedUrl } from "./FakeUpstream.ts"

export interface OwnPostgres {
  readonly url: string
  readonly port: number
  readonly start: () => void
  /** Fast shutdown: open connections are cut, as in a crash of the server's host. */
  readonly stop: () => void
  readonly destroy: () => void
}

/** The binaries' folder of the newest installed PostgreSQL, or undefined when there is none. */
export const postgresBin = (): string | undefined => {
  const root = "/usr/lib/postgresql"
  if (!existsSync(root)) return undefined
  const versions = readdirSync(root).filter((v) => existsSync(join(root, v, "bin", "initdb"))).sort((a, b) =>
    Number(b) - Number(a)
  )
  return versions[0] === undefined ? undefined : join(root, versions[0], "bin")
}

export const startOwnPostgres = async (): Promise<OwnPostgres> => {
  const bin = postgresBin()
  if (bin === undefined) {
    throw new Error("no PostgreSQL binaries under /usr/lib/postgresql (apt-get install postgresql)")
  }
  const port = Number(new URL(await refusedUrl()).port)
  const dir = mkdtempSync(join(tmpdir(), "svc-gateway-pg-"))
  const asRoot = process.getuid?.() === 0
  if (asRoot) {
    const uid = Number(execFileSync("id", ["-u", "postgres"]).toString().trim())
    const gid = Number(execFileSync("id", ["-g", "postgres"]).toString().trim())
    chownSync(dir, uid, gid)
    chmodSync(dir, 0o700)
  }
  const run = (tool: string, args: ReadonlyArray<string>) => {
    const command = asRoot ? "runuser" : join(bin, tool)
    const argv = asRoot ? ["-u", "postgres", "--", join(bin, tool), ...args] : [...args]
    const result = spawnSync(command, argv, { encoding: "utf8", timeout: 60_000 })
    if (result.status !== 0) throw new Error(`${tool} ${args.join(" ")} failed:\n${result.stdout}\n${result.stderr}`)
  }
  const data = join(dir, "data")
  run("initdb", ["-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync"])
  const options =
    `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off`
  const start = () => run("pg_ctl", ["-D", data, "-w", "-t", "30", "-l", join(dir, "log"), "-o", options, "start"])
  const stop = () => run("pg_ctl", ["-D", data, "-w", "-t", "30", "-m", "fast", "stop"])
  start()
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    start,
    stop,
    destroy: () => {
      try {
        stop()
      } catch {
        // already stopped
      }
      rmSync(dir, { recursive: true, force: true })
    }
  }
}
