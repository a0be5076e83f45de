/**
 * OpenTelemetry GenAI semantic-convention attributes on the span of one upstream attempt: which system
 * (the configured provider instance), which model was asked for and which answered, and the tokens.
 * The core puts them on every adapter's attempt span (`core/Attempt.ts`: `Provider.complete` /
 * `Provider.stream`).
 *
 * With tracing off (Effect's native tracer) every helper here returns at once, so the hot path pays
 * nothing; a streamed attempt's span is opened only when a real tracer records it.
 */
import { Context, Effect, Tracer } from "effect"
import type { Fiber } from "effect"
import type { CompletionChunk, Usage } from "../kernel/Canonical.ts"

export interface GenAiRequest {
  /** `gen_ai.system`: the provider instance name, e.g. `openai`, `groq`, `local`. */
  readonly system: string
  /** `gen_ai.request.model`: the model id sent upstream. */
  readonly requestModel: string
}

/** What answered: a `Completion` fits as is. */
export interface GenAiResponse {
  /** `gen_ai.response.model`: the model the provider says answered. */
  readonly model: string
  readonly usage: Usage | undefined
}

export const GEN_AI = {
  operation: "gen_ai.operation.name",
  system: "gen_ai.system",
  requestModel: "gen_ai.request.model",
  responseModel: "gen_ai.response.model",
  inputTokens: "gen_ai.usage.input_tokens",
  outputTokens: "gen_ai.usage.output_tokens"
} as const

/** The request-side attributes, for a span's `attributes` option. */
export const genAiRequestAttributes = (request: GenAiRequest): Record<string, string> => ({
  [GEN_AI.operation]: "chat",
  [GEN_AI.system]: request.system,
  [GEN_AI.requestModel]: request.requestModel
})

/** The current span when a real tracer records it, else undefined (tracing off, or not sampled). */
const recordedSpan = (fiber: Fiber.Fiber<unknown, unknown>): Tracer.Span | undefined => {
  if (!fiber.cache.tracerEnabled || fiber.getRef(Tracer.Tracer) === Tracer.nativeTracer) return undefined
  const span = Context.getOrUndefined(fiber.context, Tracer.ParentSpan)
  return span !== undefined && span._tag === "Span" && span.sampled ? span : undefined
}

const setRequest = (span: Tracer.Span, request: GenAiRequest): void => {
  span.attribute(GEN_AI.operation, "chat")
  span.attribute(GEN_AI.system, request.system)
  span.attribute(GEN_AI.requestModel, request.requestModel)
}

const setUsage = (span: Tracer.Span, usage: Usage): void => {
  span.attribute(GEN_AI.inputTokens, usage.promptTokens)
  span.attribute(GEN_AI.outputTokens, usage.completionTokens)
}

/**
 * Sets the GenAI attributes on the current span: the request's, and the response's when given.
 * In a whole-completion attempt: `yield* annotateGenAi({ system, requestModel }, completion)`.
 */
export const annotateGenAi = (request: GenAiRequest, response?: GenAiResponse): Effect.Effect<void> =>
  Effect.withFiber((fiber) => {
    const span = recordedSpan(fiber)
    if (span !== undefined) {
      setRequest(span, request)
      if (response !== undefined) {
        if (response.model !== "") span.attribute(GEN_AI.responseModel, response.model)
        if (response.usage !== undefined) setUsage(span, response.usage)
      }
    }
    return Effect.void
  })

/**
 * The GenAI attributes of a streamed attempt, for its span (`spanPull`): the request's when the answer
 * opens, the response model from the first chunk that names one, the tokens from the chunk that
 * carries usage. Nothing for a span that is not sampled.
 */
export const genAiChunks = (request: GenAiRequest) => (span: Tracer.Span) => {
  if (!span.sampled) return undefined
  setRequest(span, request)
  let modelSeen = false
  return (chunks: ReadonlyArray<CompletionChunk>): void => {
    for (const chunk of chunks) {
      if (!modelSeen && chunk.model !== "") {
        modelSeen = true
        span.attribute(GEN_AI.responseModel, chunk.model)
      }
      if (chunk.usage !== undefined) setUsage(span, chunk.usage)
    }
  }
}
