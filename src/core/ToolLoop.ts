/**
 * The shared-tool loop for a whole (non-streamed) completion. While the model asks only for shared
 * tools, the gateway runs them, appends the assistant's calls and the results, and asks again, up to the
 * round limit; the client sees only the final answer, with usage summed over every round. When the model
 * asks for shared and client tools at once, the shared ones run, the turn is stored as pending, and the
 * client gets only its own calls with a `svc_pending_id`.
 */
import { Effect } from "effect"
import type { SqlError } from "effect/sql"
import { addUsage, type ChatMessage, type Completion, emptyUsage, type Usage } from "../kernel/Canonical.ts"
import type { ProviderError } from "../providers/ProviderError.ts"
import type { ToolRunRecord } from "./Outcome.ts"
import type { ToolLoopError } from "./ToolLoopError.ts"
import { decideRound, type LoopSettings, type RoundDecision } from "./ToolRound.ts"
import { assistantTurn } from "./ToolTurns.ts"

export type { LoopSettings, ToolRunRecord }

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

export const completeWithTools = <R>(
  settings: LoopSettings,
  messages: ReadonlyArray<ChatMessage>,
  callModel: (messages: ReadonlyArray<ChatMessage>) => Effect.Effect<ModelAnswer, ProviderError, R>
): Effect.Effect<LoopOutcome, ProviderError | ToolLoopError | SqlError.SqlError, R> =>
  Effect.suspend(() => {
    const runs: Array<ToolRunRecord> = []
    // one round per model call; an answer without shared tool calls (nearly all) ends it in plain code
    const round = ({ attemptsBefore, history, number, usageBefore }: {
      readonly number: number
      readonly history: ReadonlyArray<ChatMessage>
      /** Upstream calls and usage of the rounds before this one. */
      readonly attemptsBefore: number
      readonly usageBefore: Usage
    }): Effect.Effect<LoopOutcome, ProviderError | ToolLoopError | SqlError.SqlError, R> =>
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
        if (choice === undefined || answer.completion.choices.length > 1) {
          return Effect.succeed(finish(answer.completion))
        }
        const decided = decideRound(settings, {
          number,
          history,
          clientTurns: messages.length,
          assistant: assistantTurn(choice.message),
          calls: choice.message.tool_calls ?? []
        }, runs)
        const next = (
          decision: RoundDecision
        ): Effect.Effect<LoopOutcome, ProviderError | ToolLoopError | SqlError.SqlError, R> => {
          switch (decision._tag) {
            case "Final":
              return Effect.succeed(finish(answer.completion))
            case "Continue":
              return round({
                number: number + 1,
                history: decision.history,
                attemptsBefore: attempts,
                usageBefore: usage
              })
            case "Pending": {
              const message = { ...choice.message, tool_calls: decision.client }
              const completion = {
                ...answer.completion,
                choices: [{ ...choice, message, finish_reason: "tool_calls" }]
              }
              return Effect.succeed(finish(completion, decision.svcPendingId))
            }
          }
        }
        return Effect.isEffect(decided) ? Effect.flatMap(decided, next) : next(decided)
      })
    return round({ number: 1, history: messages, attemptsBefore: 0, usageBefore: emptyUsage })
  })
