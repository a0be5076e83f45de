/**
 * The gateway core for one chat completion: restore a pending shared-tool turn when the client continues
 * one, choose the shared tools to inject, resolve the model to its targets, and run the tool loop over
 * the provider, failing over to the next target when an attempt fails with a retryable error. A stream
 * fails over only until its first chunk arrives; after that the client already has output.
 */
import { Context, Effect, Layer, Scope } from "effect"
import type { SqlError } from "effect/sql"
import type { Caller } from "../kernel/Caller.ts"
import { GatewayConfig } from "../Config.ts"
import { Metrics, type MetricsShape } from "../observability/Metrics.ts"
import { hotSpan } from "../Tracing.ts"
import { RequestError } from "../kernel/RequestError.ts"
import type { Provider, ProviderCall } from "../providers/Provider.ts"
import type { ProviderError } from "../providers/ProviderError.ts"
import { Providers, type Target } from "../providers/Providers.ts"
import { PendingCalls } from "../tools/PendingCalls.ts"
import { Policy } from "../tools/Policy.ts"
import type { SvcTool } from "../tools/SvcTool.ts"
import type { ChatCall } from "../dialects/openai/ChatRequest.ts"
import { type ChatMessage, type CompletionChunk, emptyUsage } from "../kernel/ChatWire.ts"
import { type ChunkPull, type OpenPull, pullFirst, streamPull } from "../kernel/ChunkPull.ts"
import { pullWithTools, type StreamSummary } from "./StreamToolLoop.ts"
import { completeWithTools, type LoopOutcome, type LoopSettings } from "./ToolLoop.ts"
import type { ToolLoopError } from "./ToolLoopError.ts"
import { restorePending, upstreamTools } from "./ToolTurns.ts"

export interface ChatContext {
  readonly call: ChatCall
  readonly caller: Caller
  readonly requestId: string
}

export interface CompletionResult extends LoopOutcome {
  /** The target of the first model call (the primary, or the backup it failed over to). */
  readonly target: Target
}

export interface StreamResult {
  readonly target: Target
  /** Every chunk, the first one (already received) included, ending with a `choices: []` usage chunk. */
  readonly chunks: ChunkPull<CompletionChunk, ProviderError | ToolLoopError | SqlError.SqlError>
  /** Filled in as the stream runs; complete when it has ended. */
  readonly summary: StreamSummary
}

export type ChatError = RequestError | ProviderError | ToolLoopError | SqlError.SqlError

export const toProviderCall = (
  call: ChatCall,
  modelId: string,
  requestId: string,
  messages: ReadonlyArray<ChatMessage> = call.messages,
  svcTools: ReadonlyArray<SvcTool> = []
): ProviderCall => ({
  modelId,
  messages,
  tools: upstreamTools(call.tools, svcTools),
  toolChoice: call.toolChoice,
  maxTokens: call.maxTokens,
  passthrough: call.stream && Object.keys(call.streamOptions).length > 0
    ? { ...call.passthrough, stream_options: call.streamOptions }
    : call.passthrough,
  requestId
})

/** What the failover counts: every upstream error, and every move to a backup. */
export type FailoverMetrics = Pick<MetricsShape, "providerError" | "failover">

/** Runs `attempt` on each target in turn while failures are retryable and targets remain. */
export const withFailover = <A, R>(
  targets: ReadonlyArray<Target>,
  attempt: (target: Target) => Effect.Effect<A, ProviderError, R>,
  metrics?: FailoverMetrics
): Effect.Effect<{ readonly value: A; readonly target: Target; readonly attempts: number }, ProviderError, R> => {
  const observe = (error: ProviderError) => Effect.sync(() => metrics?.providerError(error))
  const go = (index: number): Effect.Effect<{ value: A; target: Target; attempts: number }, ProviderError, R> => {
    const target = targets[index]!
    const attempted = attempt(target).pipe(
      Effect.tapError(observe),
      Effect.map((value) => ({ value, target, attempts: index + 1 }))
    )
    // the last target (the only one, without backups) has nothing to fail over to: no catch around it
    if (index + 1 >= targets.length) return attempted
    return attempted.pipe(
      Effect.catchIf(
        (error) => error.retryable,
        (error) => {
          const next = targets[index + 1]!
          metrics?.failover(target.address, next.address)
          return Effect.logWarning("failing over", { from: target.address, to: next.address }).pipe(
            Effect.annotateLogs({ provider: error.provider, reason: error.reason._tag }),
            Effect.andThen(go(index + 1))
          )
        }
      )
    )
  }
  return go(0)
}

/**
 * Opens a target's answer under `scope` (the request's: it lasts as long as the response) and waits for
 * its first chunk, so that early failures can still fail over.
 */
const openStream = (
  targets: ReadonlyArray<Target>,
  call: (target: Target) => ProviderCall,
  scope: Scope.Scope,
  metrics?: FailoverMetrics
) =>
  withFailover(targets, (target) => pullFirst(answerOf(target.provider, call(target)), scope), metrics)

/** The provider's answer as a pull: its own when it offers one, else its stream's. */
const answerOf = (provider: Provider, call: ProviderCall): OpenPull<CompletionChunk, ProviderError> => {
  const open = provider.open
  return open === undefined ? streamPull(provider.stream(call)) : (scope) => open(call, scope)
}

export class ChatCompletions extends Context.Service<ChatCompletions, {
  readonly complete: (context: ChatContext) => Effect.Effect<CompletionResult, ChatError>
  readonly stream: (context: ChatContext) => Effect.Effect<StreamResult, ChatError, Scope.Scope>
}>()("svc-gateway/ChatCompletions") {
  static readonly layer = Layer.effect(ChatCompletions, Effect.gen(function*() {
    const providers = yield* Providers
    const policy = yield* Policy
    const pending = yield* PendingCalls
    const config = yield* GatewayConfig
    const metrics = yield* Metrics

    /** The conversation to send and the shared tools to offer, pending turn restored. */
    const prepare = Effect.fnUntraced(function*({ call, caller, requestId }: ChatContext) {
      let messages = call.messages
      let carried: ReadonlyArray<string> = []
      if (call.svcPendingId !== undefined) {
        const state = yield* pending.load(caller, call.svcPendingId)
        const restored = restorePending(call.messages, state)
        if (restored === undefined) {
          return yield* RequestError.invalidField(
            "messages",
            "The messages do not contain the assistant message with the tool calls that svc_pending_id continues; send the conversation back with that message and your tool results.",
            "invalid_svc_pending_id"
          )
        }
        messages = restored
        carried = state.injectedToolIds
      }
      const svcTools = yield* policy.toolsFor(caller, call.svcToolIds, call.toolChoice, carried)
      const settings: LoopSettings = {
        caller,
        requestId,
        svcTools,
        limits: { defaultTimeout: config.toolTimeout, maxOutputBytes: config.toolMaxOutputBytes },
        maxRounds: Math.max(1, config.toolMaxRounds),
        pending
      }
      const targets = yield* providers.resolve(call.model)
      return { messages, settings, targets }
    })

    const complete = Effect.fnUntraced(function*(context: ChatContext) {
      const { messages, settings, targets } = yield* prepare(context)
      let first: Target | undefined
      const outcome = yield* completeWithTools(settings, messages, (history) =>
        withFailover(targets, (target) =>
          target.provider.complete(
            toProviderCall(context.call, target.modelId, context.requestId, history, settings.svcTools)
          ), metrics).pipe(
            Effect.map(({ attempts, target, value }) => {
              first ??= target
              return { completion: value, attempts }
            })
          ))
      return { ...outcome, target: first ?? targets[0]! }
    }, hotSpan("ChatCompletions.complete"))

    const stream = Effect.fnUntraced(function*(context: ChatContext) {
      const { messages, settings, targets } = yield* prepare(context)
      const callFor = (history: ReadonlyArray<ChatMessage>) => (target: Target) =>
        toProviderCall(context.call, target.modelId, context.requestId, history, settings.svcTools)
      const scope = yield* Effect.scope
      const opened = yield* openStream(targets, callFor(messages), scope, metrics)
      const summary: StreamSummary = {
        usage: emptyUsage,
        rounds: 1,
        attempts: opened.attempts,
        toolRuns: [],
        svcPendingId: undefined
      }
      const nextRound = (history: ReadonlyArray<ChatMessage>) =>
        Effect.map(openStream(targets, callFor(history), scope, metrics), ({ attempts, value }) => {
          summary.attempts += attempts
          return value
        })
      const chunks = pullWithTools(settings, messages, opened.value, nextRound, summary)
      return { target: opened.target, chunks, summary }
    }, hotSpan("ChatCompletions.stream"))

    return ChatCompletions.of({ complete, stream })
  }))
}
