/**
 * `svc-gateway launch` run as a user would, for `npm run test:clients`: the CLI in a child process,
 * with the pinned client's folder first on `PATH`, a throwaway home holding the user's "own" client
 * config (so a test can check the launcher left it as it was), and the recording proxy that refuses
 * everything, so nothing the client does leaves 127.0.0.1.
 */
import { spawn } from "node:child_process"
import { mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { type ClientRun, collectRun, throwawayFolders } from "./ChildRun.ts"
import { proxyEnv, recordingProxy } from "./RecordingProxy.ts"

const BIN = fileURLToPath(new URL("../../bin/svc-gateway.mjs", import.meta.url))

export interface LaunchRun extends ClientRun {
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
  const { home, remove, temp, work } = throwawayFolders("svc-gateway-launch-")
  const files = Object.keys(options.files ?? {})
  for (const path of files) {
    mkdirSync(dirname(join(home, path)), { recursive: true })
    writeFileSync(join(home, path), options.files![path]!)
  }
  try {
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
    child.stdin.on("error", () => {})
    child.stdin.end(options.stdin ?? "")
    const run = await collectRun(child, proxy, options.timeoutMs)
    return {
      ...run,
      filesAfter: Object.fromEntries(files.map((path) => [path, readFileSync(join(home, path), "utf8")]))
    }
  } finally {
    remove()
    await proxy.close()
  }
}
