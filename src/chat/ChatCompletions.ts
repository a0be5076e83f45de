/**
 * The gateway core for one chat completion: resolve the model to its targets, call the provider, and
 * fail over to the next target when an attempt fails with a retryable error. A stream fails over only
 * until its first chunk arrives; after that the client already has output, and an error is the
 * client's to see.
 */
import { Context, Effect, Layer, Option, Sink, Stream } from "effect"
import type { Scope } from "effect"
import type { RequestError } from "../http/RequestError.ts"
import type { ProviderCall } from "../providers/Provider.ts"
import type { ProviderError } from "../providers/ProviderError.ts"
import { Providers, type Target } from "../providers/Providers.ts"
import type { ChatCall } from "./ChatRequest.ts"
import type { Completion, CompletionChunk } from "./ChatWire.ts"

export interface Attempted {
  /** The target that answered (the last one tried, when all failed). */
  readonly target: Target
  /** Upstream calls made, failovers included. */
  readonly attempts: number
}

export interface CompletionResult extends Attempted {
  readonly completion: Completion
}

export interface StreamResult extends Attempted {
  /** Every chunk, the first one (already received) included. Valid within the request's scope. */
  readonly chunks: Stream.Stream<CompletionChunk, ProviderError>
}

export const toProviderCall = (call: ChatCall, modelId: string, requestId: string): ProviderCall => ({
  modelId,
  messages: call.messages,
  tools: call.tools,
  toolChoice: call.toolChoice,
  maxTokens: call.maxTokens,
  passthrough: call.stream && Object.keys(call.streamOptions).length > 0
    ? { ...call.passthrough, stream_options: call.streamOptions }
    : call.passthrough,
  requestId
})

export class ChatCompletions extends Context.Service<ChatCompletions, {
  readonly complete: (
    call: ChatCall,
    requestId: string
  ) => Effect.Effect<CompletionResult, RequestError | ProviderError>
  /** Opens the stream and waits for its first chunk, so that early failures can still fail over. */
  readonly stream: (
    call: ChatCall,
    requestId: string
  ) => Effect.Effect<StreamResult, RequestError | ProviderError, Scope.Scope>
}>()("svc-gateway/ChatCompletions") {
  static readonly layer = Layer.effect(ChatCompletions, Effect.gen(function*() {
    const providers = yield* Providers

    /** Runs `attempt` on each target in turn while failures are retryable and targets remain. */
    const withFailover = <A, R>(
      targets: ReadonlyArray<Target>,
      attempt: (target: Target) => Effect.Effect<A, ProviderError, R>
    ): Effect.Effect<A & Attempted, ProviderError, R> => {
      const go = (index: number): Effect.Effect<A & Attempted, ProviderError, R> => {
        const target = targets[index]!
        return attempt(target).pipe(
          Effect.map((value) => ({ ...value, target, attempts: index + 1 })),
          Effect.catchIf(
            (error) => error.retryable && index + 1 < targets.length,
            (error) =>
              Effect.logWarning("failing over", { from: target.address, to: targets[index + 1]!.address }).pipe(
                Effect.annotateLogs({ provider: error.provider, reason: error.reason._tag }),
                Effect.andThen(go(index + 1))
              )
          )
        )
      }
      return go(0)
    }

    const complete = Effect.fn("ChatCompletions.complete")(function*(call: ChatCall, requestId: string) {
      const targets = yield* providers.resolve(call.model)
      return yield* withFailover(targets, (target) =>
        Effect.map(
          target.provider.complete(toProviderCall(call, target.modelId, requestId)),
          (completion) => ({ completion })
        ))
    })

    const stream = Effect.fn("ChatCompletions.stream")(function*(call: ChatCall, requestId: string) {
      const targets = yield* providers.resolve(call.model)
      return yield* withFailover(targets, (target) =>
        Effect.gen(function*() {
          const [first, rest] = yield* Stream.peel(
            target.provider.stream(toProviderCall(call, target.modelId, requestId)),
            Sink.head<CompletionChunk>()
          )
          const chunks = Option.match(first, {
            onNone: () => rest,
            onSome: (chunk) => Stream.concat(Stream.succeed(chunk), rest)
          })
          return { chunks }
        }))
    })

    return ChatCompletions.of({ complete, stream })
  }))
}
