/**
 * Runs a coding client in the foreground: found on `PATH` (else a clear error saying how to install
 * it), its terminal the user's own (stdin, stdout and stderr inherited, so an interactive client works
 * as if started by hand), and its exit code the launcher's. Ctrl-C reaches the client directly, as the
 * terminal's process group does; the launcher only waits.
 */
import { Effect, Schema } from "effect"
import { spawn } from "node:child_process"
import { accessSync, constants, statSync } from "node:fs"
import { delimiter, join } from "node:path"
import { AdminClientError } from "../AdminClientError.ts"
import type { ClientRun } from "./LaunchClients.ts"

/** The client ended: the launcher ends with its code (a signal's death as 128 + the signal's number). */
export class ClientExited extends Schema.TaggedError<ClientExited>()("ClientExited", {
  code: Schema.Number
}) {}

const SIGNALS: Readonly<Record<string, number>> = { SIGHUP: 1, SIGINT: 2, SIGQUIT: 3, SIGKILL: 9, SIGTERM: 15 }

/** The first executable file named `program` in the `PATH` directories, if any. */
export const findOnPath = (program: string, path: string | undefined): string | undefined => {
  for (const dir of (path ?? "").split(delimiter)) {
    if (dir === "") continue
    const candidate = join(dir, program)
    try {
      if (!statSync(candidate).isFile()) continue
      accessSync(candidate, constants.X_OK)
      return candidate
    } catch {
      // not there, or not executable: the next directory
    }
  }
  return undefined
}

/** Runs `run` with the launcher's environment changed as it says; fails with its exit code when not 0. */
export const runClient = (run: ClientRun, installHint: string) =>
  Effect.gen(function*() {
    const executable = findOnPath(run.program, process.env["PATH"])
    if (executable === undefined) {
      return yield* AdminClientError.notFound(
        `'${run.program}' is not on PATH. Install it (${installHint}), or add its folder to PATH, and run this again.`
      )
    }
    const env: Record<string, string> = {}
    for (const [name, value] of Object.entries(process.env)) {
      if (value !== undefined && !run.unset.includes(name)) env[name] = value
    }
    Object.assign(env, run.env)
    const code = yield* Effect.callback<number, AdminClientError>((resume) => {
      const child = spawn(executable, run.args, { stdio: "inherit", env })
      // the terminal sends Ctrl-C to the client too; the launcher stays until the client decides
      const ignore = () => {}
      process.on("SIGINT", ignore)
      child.on("error", (error) => {
        process.off("SIGINT", ignore)
        resume(Effect.fail(AdminClientError.unavailable(`Could not start ${executable}: ${error.message}`)))
      })
      child.on("exit", (exitCode, signal) => {
        process.off("SIGINT", ignore)
        resume(Effect.succeed(exitCode ?? 128 + (signal === null ? 0 : SIGNALS[signal] ?? 0)))
      })
    })
    if (code !== 0) return yield* new ClientExited({ code })
  })
