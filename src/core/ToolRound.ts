/**
 * The one decision of the shared-tool loop, for whole and streamed answers alike: once a round's answer
 * is complete, what happens next. No shared call: the answer is final. Shared calls only: they run, and
 * the model is asked again with the calls and their results (up to the round limit). Shared and client
 * calls at once: the shared ones run, the turn is stored as pending, and the client gets its own calls
 * with a `svc_pending_id` (no further model call, so the round limit does not apply). The round's two
 * actions (running the shared calls, storing a mixed turn) and the loop's settings live here too, so
 * the whole and streamed loops both build on this file and it on neither.
 */
import { Effect } from "effect"
import type { SqlError } from "effect/sql"
import type { Caller } from "../kernel/Caller.ts"
import type { ChatMessage, ToolCall } from "../kernel/Canonical.ts"
import type { PendingCalls } from "../tools/PendingCalls.ts"
import type { SvcTool, ToolContext } from "../tools/SvcTool.ts"
import { runToolCalls, type ToolRunLimits, type ToolRunResult } from "../tools/ToolRunner.ts"
import type { ToolRunRecord } from "./Outcome.ts"
import { RoundLimitReached, ToolLoopError } from "./ToolLoopError.ts"
import { partitionCalls, toolResultMessages } from "./ToolTurns.ts"

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

/** Runs one turn's shared calls and records them in `runs`, as of round `round`. */
export const runSharedTurn = (
  settings: LoopSettings,
  { round, runs, shared }: {
    readonly shared: ReadonlyArray<ToolCall>
    readonly round: number
    readonly runs: Array<ToolRunRecord>
  }
) =>
  runToolCalls(shared, {
    injected: new Map(settings.svcTools.map((tool) => [tool.id, tool])),
    context: {
      orgId: settings.caller.orgId,
      keyId: settings.caller.keyId,
      requestId: settings.requestId,
      cutOutput: settings.cutOutput
    },
    limits: settings.limits
  }).pipe(
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
  mixed: {
    readonly client: ReadonlyArray<ToolCall>
    readonly shared: ReadonlyArray<ToolCall>
    readonly results: ReadonlyArray<ToolRunResult>
    readonly priorTurns: ReadonlyArray<ChatMessage>
    readonly turn: { readonly content: ChatMessage["content"]; readonly calls: ReadonlyArray<ToolCall> }
  }
): Effect.Effect<string, SqlError.SqlError> => {
  const { client, priorTurns, results, shared, turn } = mixed
  return settings.pending.save(settings.caller, {
    clientToolCallIds: client.map((call) => call.id),
    priorTurns,
    sharedToolCalls: shared,
    sharedResults: results.map((result) => ({ tool_call_id: result.toolCallId, content: result.content })),
    injectedToolIds: settings.svcTools.map((tool) => tool.id),
    turn: { content: turn.content ?? null, callOrder: turn.calls.map((call) => call.id) }
  })
}

export type RoundDecision =
  | { readonly _tag: "Final" }
  | { readonly _tag: "Continue"; readonly history: ReadonlyArray<ChatMessage> }
  | { readonly _tag: "Pending"; readonly client: ReadonlyArray<ToolCall>; readonly svcPendingId: string }

const final: RoundDecision = { _tag: "Final" }

export interface FinishedRound {
  readonly number: number
  /** The conversation this round answered. */
  readonly history: ReadonlyArray<ChatMessage>
  /** How many of `history`'s first messages are the client's (what came before the loop's own turns). */
  readonly clientTurns: number
  /** The round's assistant message as the next round must see it (thinking, text; calls are set here). */
  readonly assistant: ChatMessage
  /** Every tool call of the answer, in the model's order. */
  readonly calls: ReadonlyArray<ToolCall>
}

/**
 * What to do after `round`. Runs are appended to `runs` as the shared tools finish. Plain code when the
 * answer called no shared tool (nearly all), so a round without tools costs no fiber steps.
 */
export const decideRound = (
  settings: LoopSettings,
  round: FinishedRound,
  runs: Array<ToolRunRecord>
): RoundDecision | Effect.Effect<RoundDecision, ToolLoopError | SqlError.SqlError> => {
  const { client, shared } = partitionCalls(round.calls)
  if (shared.length === 0) return final
  if (client.length === 0 && round.number >= settings.maxRounds) {
    return Effect.fail(new ToolLoopError({ reason: new RoundLimitReached({ rounds: round.number }) }))
  }
  return Effect.flatMap(
    runSharedTurn(settings, { shared, round: round.number, runs }),
    (results): Effect.Effect<RoundDecision, SqlError.SqlError> => {
      if (client.length > 0) {
        const priorTurns = round.history.slice(round.clientTurns)
        return Effect.map(
          savePending(settings, {
            client,
            shared,
            results,
            priorTurns,
            turn: { content: round.assistant.content, calls: round.calls }
          }),
          (svcPendingId) => ({ _tag: "Pending", client, svcPendingId })
        )
      }
      const history = [...round.history, { ...round.assistant, tool_calls: shared }, ...toolResultMessages(results)]
      return Effect.succeed({ _tag: "Continue", history })
    }
  )
}
