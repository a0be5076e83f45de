/**
 * Fixtures for the shared-tool tests: small tools defined with the real `defineTool`, callers, tool
 * calls, a `PendingCalls` fake that records what the loop saves, loop settings, and chunk builders for
 * scripted streamed rounds. No store, no HTTP.
 */
import { Duration, Effect, Schema } from "effect"
import type { LoopSettings } from "../../src/core/ToolLoop.ts"
import type { Caller } from "../../src/kernel/Caller.ts"
import type { ChunkChoice, CompletionChunk, ToolCall, Usage } from "../../src/kernel/Canonical.ts"
import { PendingCalls, type PendingState } from "../../src/tools/PendingCalls.ts"
import { defineTool, type SvcTool, ToolError } from "../../src/tools/SvcTool.ts"

export const testCaller = (overrides: Partial<Caller> = {}): Caller => ({
  logContent: false,
  compression: null,
  keyId: "key_1",
  keyName: "test key",
  orgId: "org_1",
  allowedSvcToolIds: null,
  ...overrides
})

/** A tool that answers with the arguments it decoded: `{ echo: text }`. */
export const echoTool = (id = "svc_echo"): SvcTool =>
  defineTool({
    id,
    description: `echoes (${id})`,
    parameters: Schema.Struct({ text: Schema.optionalKey(Schema.String) }),
    run: ({ text }) => Effect.succeed({ echo: text ?? "" })
  })

/** A tool that sleeps `sleep` (default clock) and then answers `answer`. */
export const sleepyTool = (
  id: string,
  sleep: Duration.Input,
  options: { readonly timeout?: Duration.Input; readonly answer?: unknown } = {}
): SvcTool =>
  defineTool({
    id,
    description: "sleeps",
    parameters: Schema.Struct({}),
    ...(options.timeout === undefined ? {} : { timeout: options.timeout }),
    run: () => Effect.as(Effect.sleep(sleep), options.answer ?? id)
  })

/** A tool whose run is the given effect, whatever the arguments. */
export const toolRunning = (id: string, run: () => Effect.Effect<unknown, ToolError>): SvcTool =>
  defineTool({ id, description: "scripted", parameters: Schema.Struct({}), run })

export const failingTool = (id: string, message: string): SvcTool =>
  toolRunning(id, () => Effect.fail(new ToolError({ message })))

export const callOf = (id: string, name: string, args: unknown = {}): ToolCall => ({
  id,
  type: "function",
  function: { name, arguments: typeof args === "string" ? args : JSON.stringify(args) }
})

export interface SavedPending {
  readonly caller: Caller
  readonly state: PendingState
}

/** A `PendingCalls` that records every save and answers `svcpend_<n>`; load and sweep are not used. */
export const recordingPending = () => {
  const saved: Array<SavedPending> = []
  const service = PendingCalls.of({
    save: (caller, state) =>
      Effect.sync(() => {
        saved.push({ caller, state })
        return `svcpend_${saved.length}`
      }),
    load: () => Effect.die(new Error("PendingCalls.load is not used by the loop")),
    sweep: Effect.die(new Error("PendingCalls.sweep is not used by the loop"))
  })
  return { saved, service }
}

export const loopSettings = (
  svcTools: ReadonlyArray<SvcTool>,
  pending: PendingCalls["Service"],
  overrides: Partial<LoopSettings> = {}
): LoopSettings => ({
  caller: testCaller(),
  requestId: "req_loop",
  svcTools,
  limits: { defaultTimeout: Duration.seconds(5), maxOutputBytes: 64 * 1024 },
  maxRounds: 5,
  pending,
  cutOutput: () => Effect.succeed(undefined),
  ...overrides
})

export const tokens = (prompt: number, completion: number, cached = 0, reasoning = 0): Usage => ({
  promptTokens: prompt,
  completionTokens: completion,
  totalTokens: prompt + completion,
  cachedTokens: cached,
  reasoningTokens: reasoning
})

const chunk = (choices: ReadonlyArray<ChunkChoice>, usage?: Usage): CompletionChunk => ({
  model: "upstream-model",
  choices,
  usage,
  extra: {}
})

/** A text delta for choice 0, with the role when asked. */
export const textDelta = (text: string, role?: "assistant"): CompletionChunk =>
  chunk([{ index: 0, delta: role === undefined ? { content: text } : { role, content: text } }])

/** A tool-call delta for choice 0; the first delta of a call carries its id and name. */
export const toolDelta = (
  index: number,
  piece: { readonly id?: string; readonly name?: string; readonly args?: string }
): CompletionChunk =>
  chunk([{
    index: 0,
    delta: {
      tool_calls: [{
        index,
        ...(piece.id === undefined ? {} : { id: piece.id, type: "function" as const }),
        function: {
          ...(piece.name === undefined ? {} : { name: piece.name }),
          ...(piece.args === undefined ? {} : { arguments: piece.args })
        }
      }]
    }
  }])

export const finishDelta = (reason: string): CompletionChunk => chunk([{ index: 0, delta: {}, finish_reason: reason }])

/** The usage-only chunk upstreams send last when asked for usage. */
export const usageDelta = (usage: Usage): CompletionChunk => chunk([], usage)
