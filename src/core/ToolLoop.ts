/**
 * The shared-tool loop for a whole (non-streamed) completion. While the model asks only for shared
 * tools, the gateway runs them, appends the assistant's calls and the results, and asks again, up to the
 * round limit; the client sees only the final answer, with usage summed over every round. When the model
 * asks for shared and client tools at once, the shared ones run, the turn is stored as pending, and the
 * client gets only its own calls with a `svc_pending_id`.
 */
import { Effect } from "effect"
import type { SqlError } from "effect/sql"
import type { Caller } from "../kernel/Caller.ts"
import type { ToolRunRecord } from "./Outcome.ts"
import type { ProviderError } from "../providers/ProviderError.ts"
import type { PendingCalls } from "../tools/PendingCalls.ts"
import type { SvcTool, ToolContext } from "../tools/SvcTool.ts"
import { type ToolRunLimits, type ToolRunResult, runToolCalls } from "../tools/ToolRunner.ts"
import { addUsage, type ChatMessage, type Completion, emptyUsage, type ToolCall, type Usage } from "../kernel/ChatWire.ts"
import type { ToolLoopError } from "./ToolLoopError.ts"
import { decideRound, type RoundDecision } from "./ToolRound.ts"
import { assistantTurn } from "./ToolTurns.ts"

export type { ToolRunRecord }

export interface LoopSettings {
  readonly caller: Caller
  readonly requestId: string
  readonly svcTools: ReadonlyArray<SvcTool>
  readonly limits: ToolRunLimits
  readonly maxRounds: number
  readonly pending: PendingCalls["Service"]
  /** Reads what compression cut from the caller's tool results (`svc_expand_output`). */
  readonly cutOutput: ToolContext["cutOutput"]
}

export interface ModelAnswer {
  readonly completion: Completion
  readonly attempts: number
}

export interface LoopOutcome {
  readonly completion: Completion
  /** Upstream calls over every round, failovers included. */
  readonly attempts: number
  readonly rounds: number
  readonly toolRuns: ReadonlyArray<ToolRunRecord>
  readonly svcPendingId: string | undefined
}

/** Runs one turn's shared calls and records them. */
export const runSharedTurn = (
  settings: LoopSettings,
  shared: ReadonlyArray<ToolCall>,
  round: number,
  runs: Array<ToolRunRecord>
) =>
  runToolCalls(
    shared,
    new Map(settings.svcTools.map((tool) => [tool.id, tool])),
    { orgId: settings.caller.orgId, keyId: settings.caller.keyId, requestId: settings.requestId, cutOutput: settings.cutOutput },
    settings.limits
  ).pipe(
    Effect.tap((results) =>
      Effect.sync(() => {
        for (const result of results) runs.push({ id: result.toolId, outcome: result.outcome, round })
      })
    )
  )

/**
 * Stores a mixed turn for its continuation; returns the `svc_pending_id`. `priorTurns`: the shared-only
 * rounds the gateway ran before it, which the model saw and the client never did.
 */
export const savePending = (
  settings: LoopSettings,
  client: ReadonlyArray<ToolCall>,
  shared: ReadonlyArray<ToolCall>,
  results: ReadonlyArray<ToolRunResult>,
  priorTurns: ReadonlyArray<ChatMessage>,
  turn: { readonly content: ChatMessage["content"]; readonly calls: ReadonlyArray<ToolCall> }
): Effect.Effect<string, SqlError.SqlError> =>
  settings.pending.save(settings.caller, {
    clientToolCallIds: client.map((call) => call.id),
    priorTurns,
    sharedToolCalls: shared,
    sharedResults: results.map((result) => ({ tool_call_id: result.toolCallId, content: result.content })),
    injectedToolIds: settings.svcTools.map((tool) => tool.id),
    turn: { content: turn.content ?? null, callOrder: turn.calls.map((call) => call.id) }
  })

export const completeWithTools = <R>(
  settings: LoopSettings,
  messages: ReadonlyArray<ChatMessage>,
  callModel: (messages: ReadonlyArray<ChatMessage>) => Effect.Effect<ModelAnswer, ProviderError, R>
): Effect.Effect<LoopOutcome, ProviderError | ToolLoopError | SqlError.SqlError, R> =>
  Effect.suspend(() => {
    const runs: Array<ToolRunRecord> = []
    // one round per model call; an answer without shared tool calls (nearly all) ends it in plain code
    const round = (
      number: number,
      history: ReadonlyArray<ChatMessage>,
      attemptsBefore: number,
      usageBefore: Usage
    ): Effect.Effect<LoopOutcome, ProviderError | ToolLoopError | SqlError.SqlError, R> =>
      Effect.flatMap(callModel(history), (answer) => {
        const attempts = attemptsBefore + answer.attempts
        const usage = addUsage(usageBefore, answer.completion.usage)
        const finish = (completion: Completion, svcPendingId?: string): LoopOutcome => ({
          completion: { ...completion, usage },
          attempts,
          rounds: number,
          toolRuns: runs,
          svcPendingId
        })
        const choice = answer.completion.choices[0]
        // several choices (n > 1) are not looped: there is no single conversation to continue
        if (choice === undefined || answer.completion.choices.length > 1) return Effect.succeed(finish(answer.completion))
        const decided = decideRound(settings, {
          number,
          history,
          clientTurns: messages.length,
          assistant: assistantTurn(choice.message),
          calls: choice.message.tool_calls ?? []
        }, runs)
        const next = (decision: RoundDecision): Effect.Effect<LoopOutcome, ProviderError | ToolLoopError | SqlError.SqlError, R> => {
          switch (decision._tag) {
            case "Final":
              return Effect.succeed(finish(answer.completion))
            case "Continue":
              return round(number + 1, decision.history, attempts, usage)
            case "Pending": {
              const message = { ...choice.message, tool_calls: decision.client }
              const completion = { ...answer.completion, choices: [{ ...choice, message, finish_reason: "tool_calls" }] }
              return Effect.succeed(finish(completion, decision.svcPendingId))
            }
          }
        }
        return Effect.isEffect(decided) ? Effect.flatMap(decided, next) : next(decided)
      })
    return round(1, messages, 0, emptyUsage)
  })
