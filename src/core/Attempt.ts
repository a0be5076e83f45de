/**
 * One upstream attempt, with its span and GenAI attributes put on here, once, for every adapter: an
 * adapter only maps and calls. With tracing off nothing is added (a span costs a context update on
 * every pull of a stream); with it on, a whole attempt is a `Provider.complete` span and a streamed one
 * a `Provider.stream` span that lasts until its answer's scope closes (see `spanPull`).
 */
import { Effect } from "effect"
import type { Completion, CompletionChunk } from "../kernel/Canonical.ts"
import { type OpenPull, spanPull } from "../kernel/ChunkPull.ts"
import { annotateGenAi, genAiChunks, type GenAiRequest } from "../observability/GenAi.ts"
import type { Provider, ProviderCall } from "../providers/Provider.ts"
import type { ProviderError } from "../providers/ProviderError.ts"
import { isTracing } from "../Tracing.ts"

const attributes = (provider: Provider, call: ProviderCall) => ({
  "gateway.provider": provider.name,
  "gateway.adapter": provider.adapter,
  "gateway.model": call.modelId
})

const genAiOf = (provider: Provider, call: ProviderCall): GenAiRequest => ({
  system: provider.name,
  requestModel: call.modelId
})

const tracedComplete = Effect.fnUntraced(function*(provider: Provider, call: ProviderCall) {
  const genAi = genAiOf(provider, call)
  yield* annotateGenAi(genAi)
  const completion = yield* provider.complete(call)
  yield* annotateGenAi(genAi, completion)
  return completion
})

/** A whole answer from `provider`. */
export const completeAttempt = (provider: Provider, call: ProviderCall): Effect.Effect<Completion, ProviderError> =>
  Effect.withFiber((fiber) =>
    isTracing(fiber)
      ? Effect.withSpan(tracedComplete(provider, call), "Provider.complete", {
        attributes: attributes(provider, call),
        captureStackTrace: false
      })
      : provider.complete(call)
  )

/** A streamed answer from `provider`, to open in a scope. */
export const openAttempt =
  (provider: Provider, call: ProviderCall): OpenPull<CompletionChunk, ProviderError> => (scope) =>
    Effect.withFiber((fiber) =>
      isTracing(fiber)
        ? spanPull((scope) => provider.open(call, scope), "Provider.stream", {
          attributes: attributes(provider, call),
          observe: genAiChunks(genAiOf(provider, call))
        })(scope)
        : provider.open(call, scope)
    )
