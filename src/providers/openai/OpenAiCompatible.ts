/**
 * The adapter for every upstream that speaks OpenAI's chat-completions API (OpenAI, Groq, Together,
 * Mistral, DeepSeek, OpenRouter, vLLM, llama.cpp, Ollama). One `Provider` per configured instance;
 * instances differ only in URL, key, extra headers and timeouts. HTTP, transport and decode failures
 * are translated into `ProviderError` here, where they enter; the wire mapping is in `OpenAiMapping.ts`.
 */
import { Duration, Effect, Redacted, Result, Scope } from "effect"
import { dataIds, listModelIds } from "../ModelList.ts"
import type { Provider, ProviderCall } from "../Provider.ts"
import { ProviderError, UpstreamBadResponse } from "../ProviderError.ts"
import { withRetryAfter } from "../RetryAfter.ts"
import { endEvent, type EventStep, sseChunks } from "../SseChunks.ts"
import { reasonFromTransportError } from "../UpstreamReasons.ts"
import { type UpstreamResponse, UpstreamTransport, type UpstreamTransportError } from "../UpstreamTransport.ts"
import { buildRequestBody, decodeChunk, decodeCompletion, decodeErrorResponse, droppedFields } from "./OpenAiMapping.ts"

export interface OpenAiCompatibleOptions {
  /** Instance name, e.g. `openai`, `groq`; reported as `ProviderError.provider`. */
  readonly name: string
  /** e.g. `https://api.openai.com/v1`; requests go to `${baseUrl}/chat/completions`. */
  readonly baseUrl: string
  /** `undefined` sends no `Authorization` header (vLLM, Ollama). */
  readonly apiKey: Redacted.Redacted<string> | undefined
  readonly headers: Readonly<Record<string, string>>
  readonly models: ReadonlyArray<string>
  readonly timeouts: {
    /** Until the response headers arrive; undefined: not enforced. */
    readonly firstByte?: Duration.Duration | undefined
    /** Longest silence between two pieces of a streamed body; undefined: not enforced. */
    readonly idle?: Duration.Duration | undefined
    /** The whole call: through the decoded body, or through the end of the stream. */
    readonly total: Duration.Duration
  }
}

type Reason = ProviderError["reason"]

export const adapter = "openai-compatible"

/** Where `chat/completions` lives under a base URL written with or without a trailing slash. */
export const completionsUrl = (baseUrl: string): string => `${baseUrl.replace(/\/+$/, "")}/chat/completions`

export const make = (options: OpenAiCompatibleOptions): Effect.Effect<Provider, never, UpstreamTransport> =>
  Effect.gen(function*() {
    const transport = yield* UpstreamTransport
    const url = completionsUrl(options.baseUrl)
    const timeouts = {
      firstByte: options.timeouts.firstByte,
      idle: options.timeouts.idle,
      total: options.timeouts.total
    }
    // Configured headers first, so they cannot replace the ones this adapter is responsible for.
    const headers: Record<string, string> = {}
    for (const [name, value] of Object.entries(options.headers)) headers[name.toLowerCase()] = value
    headers["content-type"] = "application/json"
    if (options.apiKey !== undefined) headers["authorization"] = `Bearer ${Redacted.value(options.apiKey)}`

    const fail = (reason: Reason) => new ProviderError({ provider: options.name, reason })
    const fromTransportError = (error: UpstreamTransportError) => fail(reasonFromTransportError(error))

    /** Sends the call and succeeds with a 2xx response whose body is still unread. */
    const send = Effect.fnUntraced(function*(call: ProviderCall, stream: boolean) {
      const response = yield* transport.send({
        url,
        headers: { ...headers, "x-request-id": call.requestId },
        body: JSON.stringify(buildRequestBody(call, stream)),
        timeouts
      }).pipe(Effect.mapError(fromTransportError))
      if (response.status >= 200 && response.status < 300) return response
      // An unreadable error body still leaves the status worth reporting.
      const body = yield* response.text.pipe(
        Effect.catch(() => Effect.succeed("")),
        Effect.onInterrupt(() => response.cancel)
      )
      return yield* Effect.fail(fail(withRetryAfter(decodeErrorResponse(response.status, body), response.headers)))
    })

    const complete = Effect.fnUntraced(function*(call: ProviderCall) {
      const response = yield* send(call, false)
      const body = yield* response.text.pipe(
        Effect.mapError(fromTransportError),
        Effect.onInterrupt(() => response.cancel)
      )
      const completion = decodeCompletion(body, call.modelId)
      if (Result.isFailure(completion)) return yield* Effect.fail(fail(completion.failure))
      return completion.success
    })

    /** One SSE event of a chat-completions stream; `[DONE]` ends it. */
    const eventOf = (modelId: string) => (data: string): EventStep => {
      if (data.trim() === "[DONE]") return endEvent
      const chunk = decodeChunk(data, modelId)
      return Result.isFailure(chunk) ? { _tag: "Fail", reason: chunk.failure } : { _tag: "Chunk", chunk: chunk.success }
    }

    /**
     * Some servers answer a streaming request with a JSON body: an error wrapped in a 200 (OpenRouter)
     * or a whole completion (servers that ignore `stream`). Report which, instead of a cut stream.
     */
    const notStreamed = Effect.fnUntraced(function*(response: UpstreamResponse, modelId: string) {
      const body = yield* response.text.pipe(Effect.mapError(fromTransportError))
      const decoded = decodeCompletion(body, modelId)
      return yield* Effect.fail(fail(
        Result.isFailure(decoded) && decoded.failure._tag === "UpstreamStatus"
          ? decoded.failure
          : new UpstreamBadResponse({ message: "upstream answered a streaming request with JSON, not SSE" })
      ))
    })

    /**
     * The answer's chunks; the upstream body is released (after `[DONE]`) or aborted when `scope` closes.
     * A generator function made once per provider: one made per call would outlive it (see http/Pipeline.ts).
     */
    const open = Effect.fnUntraced(function*(call: ProviderCall, scope: Scope.Scope) {
      const response = yield* send(call, true)
      if ((response.headers["content-type"] ?? "").startsWith("application/json")) {
        yield* Scope.addFinalizer(scope, response.cancel)
        return notStreamed(response, call.modelId)
      }
      const { finalizer, pull } = sseChunks(response, {
        decode: eventOf(call.modelId),
        fail,
        fromTransportError,
        cut: "upstream stream ended before [DONE]"
      })
      // the upstream body lives as long as the answer: a consumer that stops or leaves aborts it
      yield* Scope.addFinalizer(scope, finalizer)
      return pull
    })

    const listModels = listModelIds(transport, options.name, {
      url: `${options.baseUrl.replace(/\/+$/, "")}/models`,
      headers
    }, dataIds)

    return {
      name: options.name,
      adapter,
      models: options.models,
      complete,
      open,
      dropped: droppedFields,
      listModels
    } satisfies Provider
  })
