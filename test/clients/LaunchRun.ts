/**
 * `svc-gateway launch` run as a user would, for `npm run test:clients`: the CLI in a child process,
 * with the pinned client's folder first on `PATH`, a throwaway home holding the user's "own" client
 * config (so a test can check the launcher left it as it was), and the recording proxy that refuses
 * everything, so nothing the client does leaves 127.0.0.1.
 */
import { spawn } from "node:child_process"
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { proxyEnv, recordingProxy } from "./RecordingProxy.ts"

const BIN = fileURLToPath(new URL("../../bin/svc-gateway.mjs", import.meta.url))

export interface LaunchRun {
  readonly exitCode: number | null
  readonly stdout: string
  readonly stderr: string
  readonly outbound: ReadonlyArray<string>
  /** The home's files after the run, by path under the home, for the ones the test wrote. */
  readonly filesAfter: Readonly<Record<string, string>>
}

/** Runs `svc-gateway <args>` with `executable`'s folder on PATH, `home` holding `files`, `env` added. */
export const runLaunch = async (options: {
  readonly executable: string
  readonly args: ReadonlyArray<string>
  readonly env?: Readonly<Record<string, string>>
  /** Files of the user's own config, by path under the home. */
  readonly files?: Readonly<Record<string, string>>
  readonly stdin?: string
  readonly timeoutMs?: number
}): Promise<LaunchRun> => {
  const proxy = await recordingProxy()
  const root = mkdtempSync(join(tmpdir(), "svc-gateway-launch-"))
  const [home, work, temp] = ["home", "work", "tmp"].map((name) => join(root, name)) as [string, string, string]
  for (const dir of [home, work, temp]) mkdirSync(dir)
  for (const [path, text] of Object.entries(options.files ?? {})) {
    mkdirSync(dirname(join(home, path)), { recursive: true })
    writeFileSync(join(home, path), text)
  }
  try {
    return await new Promise<LaunchRun>((resolve, reject) => {
      const child = spawn(process.execPath, [BIN, ...options.args], {
        cwd: work,
        env: {
          PATH: `${dirname(options.executable)}:${dirname(process.execPath)}:${process.env["PATH"] ?? "/usr/bin:/bin"}`,
          HOME: home,
          TMPDIR: temp,
          ...proxyEnv(proxy.url),
          ...options.env
        },
        stdio: ["pipe", "pipe", "pipe"]
      })
      child.stdin.end(options.stdin ?? "")
      let stdout = ""
      let stderr = ""
      child.stdout.on("data", (part: Buffer) => (stdout += part.toString("utf8")))
      child.stderr.on("data", (part: Buffer) => (stderr += part.toString("utf8")))
      const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 90_000)
      child.on("error", (error) => {
        clearTimeout(timer)
        reject(error)
      })
      child.on("close", (exitCode) => {
        clearTimeout(timer)
        const filesAfter: Record<string, string> = {}
        for (const path of Object.keys(options.files ?? {})) filesAfter[path] = readFileSync(join(home, path), "utf8")
        resolve({ exitCode, stdout, stderr, outbound: [...proxy.seen], filesAfter })
      })
    })
  } finally {
    rmSync(root, { recursive: true, force: true })
    await proxy.close()
  }
}
