/**
 * The load generator as a child process (`load.ts`), so it never shares an event loop with what it
 * measures: `run(spec)` sends it one window of load and resolves with the raw samples.
 */
import type { ChildProcess } from "node:child_process"
import { join } from "node:path"
import type { LoadRun, LoadSpec } from "./load.ts"
import { forkScript, nextMessage } from "./proc.ts"

export interface Loader {
  readonly child: ChildProcess
  readonly run: (spec: LoadSpec) => Promise<LoadRun>
}

type LoadAnswer = { readonly ok: true; readonly run: LoadRun } | { readonly ok: false; readonly message: string }

export const startLoader = (repoRoot: string): Loader => {
  const child = forkScript(join(repoRoot, "bench", "load.ts"), [], repoRoot)
  let nextId = 0
  const run = async (spec: LoadSpec): Promise<LoadRun> => {
    const id = ++nextId
    const answer = nextMessage<LoadAnswer>(
      child,
      (message) => {
        if (typeof message !== "object" || message === null || !("id" in message) || message.id !== id) return undefined
        if ("result" in message) return { ok: true, run: message.result as LoadRun }
        return { ok: false, message: "message" in message ? String(message.message) : "load generator failed" }
      },
      (spec.warmupSeconds + spec.seconds) * 1_000 + 60_000,
      `load ${spec.url}`
    )
    child.send({ type: "run", id, spec })
    const outcome = await answer
    if (!outcome.ok) throw new Error(`load generator: ${outcome.message}`)
    return outcome.run
  }
  return { child, run }
}
