/**
 * The gateway core for one chat request, whatever its wire format: restore a pending shared-tool turn
 * when the client continues one, choose the shared tools to inject, resolve the model to its targets,
 * and run the tool loop over the provider, failing over to the next target when an attempt fails with a
 * retryable error. A stream fails over only until its first chunk arrives; after that the client already
 * has output. What the request came to is returned as one value (`WholeAnswer`, `StreamAnswer.outcome`).
 */
import { Context, Duration, Effect, Layer, Scope } from "effect"
import type { SqlError } from "effect/sql"
import { EXPAND_TOOL_ID } from "../compression/Aggressive.ts"
import { requestCompression } from "../compression/RequestCompression.ts"
import { GatewayConfig } from "../Config.ts"
import type { Caller } from "../kernel/Caller.ts"
import { addUsage, type ChatMessage, type CompletionChunk, emptyUsage, type Usage } from "../kernel/Canonical.ts"
import type { ChatCall, ToolChoice } from "../kernel/ChatCall.ts"
import { pullFirst } from "../kernel/ChunkPull.ts"
import type { CompressionLevel } from "../kernel/CompressionLevel.ts"
import { RequestError } from "../kernel/RequestError.ts"
import { Metrics } from "../observability/Metrics.ts"
import { addCost, type Cost, costOf, ZERO_COST } from "../prices/Cost.ts"
import { Prices } from "../prices/Prices.ts"
import { type ProviderCall, takesNative } from "../providers/Provider.ts"
import type { ProviderError } from "../providers/ProviderError.ts"
import { Providers, type Target } from "../providers/Providers.ts"
import { CutOutputs } from "../tools/CutOutputs.ts"
import { PendingCalls } from "../tools/PendingCalls.ts"
import { Policy } from "../tools/Policy.ts"
import { ToolError } from "../tools/SvcTool.ts"
import type { SvcTool } from "../tools/SvcTool.ts"
import { ToolRegistry } from "../tools/ToolRegistry.ts"
import { hotSpan } from "../Tracing.ts"
import { completeAttempt, openAttempt } from "./Attempt.ts"
import { Balancer } from "./Balancer.ts"
import { type FailoverOptions, withFailover } from "./Failover.ts"
import type { StreamAnswer, WholeAnswer } from "./Outcome.ts"
import { pullWithTools } from "./StreamToolLoop.ts"
import { TargetBreaker } from "./TargetBreaker.ts"
import { completeWithTools, type LoopSettings } from "./ToolLoop.ts"
import type { ToolLoopError } from "./ToolLoopError.ts"
import { isSharedCall, restorePending, upstreamTools } from "./ToolTurns.ts"

export interface ChatContext {
  readonly call: ChatCall
  readonly caller: Caller
  readonly requestId: string
  /** How much of what goes upstream is compressed (the request's, the org's or the gateway's level). */
  readonly compression: CompressionLevel
  /**
   * Told, when a whole answer fails after upstream calls that answered (a shared-tool loop's earlier
   * rounds), what those calls used and cost: they were billed though the request failed.
   */
  readonly billed?: ((spent: { readonly usage: Usage; readonly cost: Cost | null }) => void) | undefined
  /** The client's session (`RequestDraft.sessionOf`), for the upstream's prompt cache. */
  readonly sessionId?: string | null | undefined
}

export type ChatError = RequestError | ProviderError | ToolLoopError | SqlError.SqlError

/**
 * The call one target gets for one round. `native`: whether the history still starts with the client's
 * own decoded messages, so an adapter of the client's format may start from the client's request.
 */
export const toProviderCall = (
  call: ChatCall,
  to: {
    readonly modelId: string
    readonly requestId: string
    /** The conversation as it goes up (a restored pending turn, compression); default the call's. */
    readonly messages?: ReadonlyArray<ChatMessage> | undefined
    readonly svcTools?: ReadonlyArray<SvcTool> | undefined
    /** Whether the client's own request may travel as it came; default when it carries one. */
    readonly native?: boolean | undefined
    readonly toolChoice?: ToolChoice | undefined
    readonly sessionId?: string | null | undefined
  }
): ProviderCall => {
  const { modelId, requestId } = to
  const messages = to.messages ?? call.messages
  const native = to.native ?? call.native !== undefined
  const toolChoice = to.toolChoice ?? call.toolChoice
  return {
    modelId,
    messages,
    tools: upstreamTools(call.tools, to.svcTools ?? []),
    toolChoice,
    maxTokens: call.maxTokens,
    passthrough: call.stream && Object.keys(call.streamOptions).length > 0
      ? { ...call.passthrough, stream_options: call.streamOptions }
      : call.passthrough,
    requestId,
    ...(native && call.native !== undefined
      ? { native: { request: call.native, clientTurns: call.messages.length } }
      : {}),
    ...(to.sessionId === undefined || to.sessionId === null ? {} : { sessionId: to.sessionId })
  }
}

/**
 * The tool choice of a round after shared tools ran. A round continues only after the model called
 * shared tools alone, which met `required` (or a named shared tool): asking for a tool again would make
 * the model call one every round until the round limit, so later rounds ask `auto`.
 */
export const laterToolChoice = (choice: ToolChoice | undefined): ToolChoice | undefined =>
  choice === "required" || (typeof choice === "object" && isSharedCall(choice.function.name)) ? "auto" : choice

/** The client's dropped fields, then the target's, each once. */
const droppedFor = (call: ChatCall, target: Target, providerCall: ProviderCall): ReadonlyArray<string> => {
  const own = target.provider.dropped?.(providerCall) ?? []
  // a target of the client's own format takes the client's request as it came: nothing of it is dropped
  const client = providerCall.native !== undefined && takesNative(target.provider, providerCall.native.request.format)
    ? []
    : call.dropped ?? []
  if (own.length === 0) return client
  return [...new Set([...client, ...own])]
}

/**
 * Whether a chunk shows the client anything: text, thinking, a tool call, a refusal or a finish. A
 * stream's chunks before the first that does (the role-only first chunk) are held, so the answer can
 * still fail over until the client has seen a token.
 */
export const showsOutput = (chunk: CompletionChunk): boolean => {
  for (const choice of chunk.choices) {
    if (choice.finish_reason != null) return true
    const delta = choice.delta as Readonly<Record<string, unknown>>
    for (const key in delta) {
      if (key === "role") continue
      const value = delta[key]
      if (value !== null && value !== undefined && value !== "" && !(Array.isArray(value) && value.length === 0)) {
        return true
      }
    }
  }
  return false
}

export class GatewayCore extends Context.Service<GatewayCore, {
  readonly complete: (context: ChatContext) => Effect.Effect<WholeAnswer, ChatError>
  readonly stream: (context: ChatContext) => Effect.Effect<StreamAnswer<ChatError>, ChatError, Scope.Scope>
}>()("svc-gateway/GatewayCore") {
  static readonly layer = Layer.effect(
    GatewayCore,
    Effect.gen(function*() {
      const providers = yield* Providers
      const policy = yield* Policy
      const pending = yield* PendingCalls
      const config = yield* GatewayConfig
      const metrics = yield* Metrics
      const cutOutputs = yield* CutOutputs
      const prices = yield* Prices
      const balancer = yield* Balancer
      /** The cost of each round at the price of the target that answered it; null when one price is unknown. */
      const costOfRounds = (targets: ReadonlyArray<Target>, usages: ReadonlyArray<Usage>): Cost | null => {
        let cost = ZERO_COST
        for (let i = 0; i < usages.length; i++) {
          const target = targets[i] ?? targets[targets.length - 1]!
          const price = prices.of(target.provider.name, target.modelId).price
          if (price === null) return null
          cost = addCost(cost, costOf(price, usages[i]!))
        }
        return cost
      }
      const expandTool = (yield* ToolRegistry).get(EXPAND_TOOL_ID)
      const failover: FailoverOptions = {
        rules: {
          retries: Math.max(0, config.upstreamRetries),
          backoffMs: Duration.toMillis(config.retryBackoff),
          retryAfterMaxMs: Duration.toMillis(config.retryAfterMax),
          deadlineMs: Duration.toMillis(config.retryDeadline)
        },
        metrics,
        guard: (yield* TargetBreaker).guard
      }

      /** The conversation to send, the shared tools to offer and the targets, pending turn restored. */
      const prepare = Effect.fnUntraced(function*(context: ChatContext) {
        const { call, caller, compression: level, requestId } = context
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
        const allowed = yield* policy.toolsFor(caller, {
          listed: call.svcToolIds,
          toolChoice: call.toolChoice,
          carried
        })
        // only what goes upstream is compressed: the tool loop, shared tools and pending turns keep `history`.
        // The first round is compressed now: what it cut decides whether svc_expand_output is offered to a
        // client without tools of its own. An agent (a client with tools) at `aggressive` gets it from its
        // first turn, so its tools, which come first in the prompt, never change mid-conversation and the
        // provider's cached prefix holds (bench:compression weighs the two: a definition read from the
        // cache each turn costs less than the one cache break the first cut would cause).
        const compression = requestCompression(level)
        compression.wire(messages)
        const remember = () => {
          const cuts = compression.takeCuts()
          if (cuts.length > 0) cutOutputs.remember(caller, cuts)
          return cuts.length > 0
        }
        const cutFirstRound = remember()
        const fromFirstTurn = level === "aggressive" && (call.tools?.length ?? 0) > 0
        const offerExpand = (cutFirstRound || fromFirstTurn) && expandTool !== undefined &&
          call.toolChoice !== "none" && !allowed.includes(expandTool)
        const svcTools = offerExpand ? [...allowed, expandTool] : allowed
        // offered only once a cut came, the tools changed from the turn before: a cache the gateway broke
        if (offerExpand && !fromFirstTurn) compression.expandOffered(messages)
        const settings: LoopSettings = {
          caller,
          requestId,
          svcTools,
          limits: { defaultTimeout: config.toolTimeout, maxOutputBytes: config.toolMaxOutputBytes },
          maxRounds: Math.max(1, config.toolMaxRounds),
          pending,
          cutOutput: (id) =>
            cutOutputs.get(caller, id).pipe(
              Effect.mapError(() => new ToolError({ message: "The cut output could not be read just now; try again." }))
            )
        }
        const targets = balancer.order(yield* providers.resolve(call.model, call.bareModelAuthor), context.sessionId)
        // a restored pending turn rewrote the client's history: the client's own request no longer matches it
        const native = messages === call.messages && call.native !== undefined
        const later = laterToolChoice(call.toolChoice)
        const callFor = (history: ReadonlyArray<ChatMessage>) => {
          const sent = compression.wire(history)
          // a later round's new tool results may be cut too: kept for the caller's next turn
          remember()
          const sentCall = native && call.native !== undefined
            ? { ...call, native: compression.native(call.native) }
            : call
          const choice = history === messages ? call.toolChoice : later
          return (target: Target) =>
            toProviderCall(sentCall, {
              modelId: target.modelId,
              requestId,
              messages: sent,
              svcTools,
              native,
              toolChoice: choice,
              sessionId: context.sessionId
            })
        }
        return { messages, settings, targets, callFor, compression }
      })

      const complete = Effect.fnUntraced(function*(context: ChatContext) {
        const { callFor, compression, messages, settings, targets } = yield* prepare(context)
        const session = context.sessionId
        let first: { readonly target: Target; readonly call: ProviderCall } | undefined
        // each round's answering target and usage, for its cost
        const answeredBy: Array<Target> = []
        const roundUsages: Array<Usage> = []
        const outcome = yield* completeWithTools(settings, messages, (history) => {
          const callOf = callFor(history)
          return withFailover(
            targets,
            (target) => balancer.watch(target, session, completeAttempt(target.provider, callOf(target))),
            failover
          ).pipe(
            Effect.map(({ attempts, target, value }) => {
              first ??= { target, call: callOf(target) }
              answeredBy.push(target)
              roundUsages.push(value.usage)
              return { completion: value, attempts }
            })
          )
        }).pipe(
          Effect.tapError(() =>
            Effect.sync(() => {
              if (roundUsages.length === 0 || context.billed === undefined) return
              context.billed({
                usage: roundUsages.reduce(addUsage, emptyUsage),
                cost: costOfRounds(answeredBy, roundUsages)
              })
            })
          )
        )
        const answered = first ?? { target: targets[0]!, call: callFor(messages)(targets[0]!) }
        const answer: WholeAnswer = {
          ...outcome,
          usage: outcome.completion.usage,
          provider: answered.target.provider.name,
          model: outcome.completion.model,
          dropped: droppedFor(context.call, answered.target, answered.call),
          compression: compression.report(),
          cost: costOfRounds(answeredBy, roundUsages),
          price: prices.of(answered.target.provider.name, answered.target.modelId).price
        }
        return answer
      }, hotSpan("GatewayCore.complete"))

      /** Opens a round's answer on the first target that gives a first chunk, failing over until one does. */
      const openRound = (
        targets: ReadonlyArray<Target>,
        callOf: (target: Target) => ProviderCall,
        scope: Scope.Scope,
        session: string | null | undefined
      ) =>
        withFailover(
          targets,
          (target) =>
            balancer.watch(
              target,
              session,
              pullFirst(openAttempt(target.provider, callOf(target)), scope, showsOutput)
            ),
          failover
        )

      const stream = Effect.fnUntraced(function*(context: ChatContext) {
        const { callFor, compression, messages, settings, targets } = yield* prepare(context)
        const scope = yield* Effect.scope
        const callOf = callFor(messages)
        const opened = yield* openRound(targets, callOf, scope, context.sessionId)
        // each round's answering target, for its cost
        const answeredBy: Array<Target> = [opened.target]
        const provider = opened.target.provider.name
        const dropped = droppedFor(context.call, opened.target, callOf(opened.target))
        const loop = pullWithTools(settings, {
          messages,
          first: { pull: opened.value, attempts: opened.attempts },
          openRound: (history) =>
            Effect.map(
              openRound(targets, callFor(history), scope, context.sessionId),
              ({ attempts, target, value }) => {
                answeredBy.push(target)
                return { pull: value, attempts }
              }
            )
        })
        const answer: StreamAnswer<ChatError> = {
          provider,
          model: opened.target.modelId,
          chunks: loop.chunks,
          outcome: () => {
            const progress = loop.progress()
            return {
              ...progress,
              provider,
              dropped,
              compression: compression.report(),
              cost: costOfRounds(answeredBy, progress.roundUsages),
              price: prices.of(opened.target.provider.name, opened.target.modelId).price
            }
          }
        }
        return answer
      }, hotSpan("GatewayCore.stream"))

      return GatewayCore.of({ complete, stream })
    })
  ).pipe(Layer.provideMerge(Balancer.layer.pipe(Layer.provideMerge(TargetBreaker.layerFromConfig))))
}
