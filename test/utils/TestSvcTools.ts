/**
 * Shared tools for end-to-end tests, installed with `startGateway(env, { tools })`: tools that record
 * their runs, fail, crash, hang, answer too much, or only succeed when run in parallel with siblings.
 */
import { Effect, Schema } from "effect"
import { defineTool, type SvcTool, ToolError } from "../../src/tools/SvcTool.ts"

const Text = Schema.Struct({ text: Schema.optionalKey(Schema.String) })

export interface ToolInvocation {
  readonly args: unknown
  readonly orgId: string
  readonly keyId: string
}

/** Answers `{echo: <text>}` and records every run. */
export const recordingTool = (id: string, runs: Array<ToolInvocation>): SvcTool =>
  defineTool({
    id,
    description: `Test tool ${id}: echoes its text`,
    parameters: Text,
    run: (args, context) =>
      Effect.sync(() => {
        runs.push({ args, orgId: context.orgId, keyId: context.keyId })
        return { echo: args.text ?? "" }
      })
  })

/** Always fails with a `ToolError` carrying `message`. */
export const failingTool = (id: string, message: string): SvcTool =>
  defineTool({
    id,
    description: "Test tool that always fails",
    parameters: Text,
    run: () => Effect.fail(new ToolError({ message }))
  })

/** A plugin bug: the run dies with a defect. */
export const crashingTool = (id: string): SvcTool =>
  defineTool({
    id,
    description: "Test tool that crashes",
    parameters: Text,
    run: () => Effect.die(new Error("plugin bug: undefined is not a function"))
  })

/** Never answers; only the gateway's timeout ends it. */
export const hangingTool = (id: string): SvcTool =>
  defineTool({ id, description: "Test tool that never answers", parameters: Text, run: () => Effect.never })

/** Answers a string of `bytes` bytes. */
export const bigTool = (id: string, bytes: number): SvcTool =>
  defineTool({
    id,
    description: "Test tool with a large output",
    parameters: Text,
    run: () => Effect.succeed("x".repeat(bytes))
  })

/**
 * Tools that only succeed together: each run waits (at most `waitMs`) until `ids.length` runs are
 * waiting, then all answer `{met: true}`; a run that waited alone answers `{met: false}`. Run one after
 * the other, the first would answer `met: false`; run in parallel, all answer `met: true`. Reusable: each
 * full group releases and the next runs start a new one.
 */
export const rendezvousTools = (ids: ReadonlyArray<string>, waitMs = 3_000): ReadonlyArray<SvcTool> => {
  let waiting: Array<() => void> = []
  const meet = () =>
    new Promise<boolean>((resolve) => {
      const met = () => {
        clearTimeout(timer)
        resolve(true)
      }
      const timer = setTimeout(() => {
        waiting = waiting.filter((other) => other !== met)
        resolve(false)
      }, waitMs)
      waiting.push(met)
      if (waiting.length >= ids.length) {
        const group = waiting
        waiting = []
        for (const release of group) release()
      }
    })
  return ids.map((id) =>
    defineTool({
      id,
      description: "Test tool that waits for its siblings",
      parameters: Text,
      run: () => Effect.map(Effect.promise(meet), (met) => ({ met, tool: id }))
    })
  )
}
