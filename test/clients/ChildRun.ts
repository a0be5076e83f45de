/**
 * A real client's run as the tests read it: its exit code and output, and what it tried to reach
 * beyond 127.0.0.1 (the recording proxy's log). One place waits for a client and kills it when it
 * runs past its time.
 */
import { type ChildProcess, execFileSync } from "node:child_process"
import { mkdirSync, mkdtempSync, rmSync } from "node:fs"
import { homedir, tmpdir } from "node:os"
import { join } from "node:path"
import type { RecordingProxy } from "./RecordingProxy.ts"

export interface ClientRun {
  readonly exitCode: number | null
  readonly stdout: string
  readonly stderr: string
  /** What the client tried to reach beyond 127.0.0.1, through the recording proxy. */
  readonly outbound: ReadonlyArray<string>
}

/** Waits for `child` (spawned with piped stdout and stderr) to end, killing it after `timeoutMs`. */
export const collectRun = (child: ChildProcess, proxy: RecordingProxy, timeoutMs = 90_000): Promise<ClientRun> =>
  new Promise<ClientRun>((resolve, reject) => {
    let stdout = ""
    let stderr = ""
    child.stdout?.on("data", (part: Buffer) => (stdout += part.toString("utf8")))
    child.stderr?.on("data", (part: Buffer) => (stderr += part.toString("utf8")))
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs)
    child.on("error", (error) => {
      clearTimeout(timer)
      reject(error)
    })
    child.on("close", (exitCode) => {
      clearTimeout(timer)
      resolve({ exitCode, stdout, stderr, outbound: [...proxy.seen] })
    })
  })

/** A run's own home, work and temp folders under one temporary root; `remove` deletes them all. */
export const throwawayFolders = (prefix: string) => {
  const root = mkdtempSync(join(tmpdir(), prefix))
  const [home, work, temp] = ["home", "work", "tmp"].map((name) => join(root, name)) as [string, string, string]
  for (const dir of [home, work, temp]) mkdirSync(dir)
  return { home, work, temp, remove: () => rmSync(root, { recursive: true, force: true }) }
}

/** Where a pinned client is installed: a cache folder outside the repository, kept between runs. */
export const clientCache = (name: string, version: string) =>
  join(homedir(), ".cache", "svc-gateway", "clients", `${name}-${version}`)

/** `npm install <spec>` into `cacheDir` (from the npm registry, nothing else), failing with what went wrong. */
export const npmInstall = (cacheDir: string, spec: string): void => {
  mkdirSync(cacheDir, { recursive: true })
  try {
    execFileSync("npm", ["install", "--prefix", cacheDir, "--no-save", "--no-audit", "--no-fund", spec], {
      stdio: "inherit",
      timeout: 300_000
    })
  } catch (cause) {
    throw new Error(`Could not install ${spec} from npm into ${cacheDir}: ${String(cause)}`, { cause })
  }
}
