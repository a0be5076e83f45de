/**
 * The adapter for Google's Gemini API: `POST {base}/models/{model}:generateContent`, and
 * `:streamGenerateContent?alt=sse` for streams, the key in `x-goog-api-key`. Errors keep Gemini's status
 * and message and fail over like every adapter's (429, 5xx); the mapping is in `GeminiRequest.ts` and
 * `GeminiResponse.ts`.
 */
import { Effect, Redacted, Result, Scope } from "effect"
import { isRecord } from "../../kernel/Json.ts"
import { listModelIds } from "../ModelList.ts"
import type { OpenAiCompatibleOptions } from "../openai/OpenAiCompatible.ts"
import type { Provider, ProviderCall } from "../Provider.ts"
import { ProviderError, UpstreamBadResponse } from "../ProviderError.ts"
import { withRetryAfter } from "../RetryAfter.ts"
import { sseChunks } from "../SseChunks.ts"
import { reasonFromTransportError } from "../UpstreamReasons.ts"
import { UpstreamTransport, type UpstreamTransportError } from "../UpstreamTransport.ts"
import { droppedFields, requestBody } from "./GeminiRequest.ts"
import { decodeGeminiError, decodeResponse, streamDecoder } from "./GeminiResponse.ts"

export const DEFAULT_BASE_URL = "https://generativelanguage.googleapis.com/v1beta"

/** The models of Gemini's list (`{models: [{name: "models/gemini-2.5-flash", supportedGenerationMethods}]}`) that generate content. */
export const geminiModelIds = (json: unknown): ReadonlyArray<string> => {
  const models = isRecord(json) ? json["models"] : undefined
  if (!Array.isArray(models)) return []
  return models.flatMap((model) => {
    if (!isRecord(model) || typeof model["name"] !== "string") return []
    const methods = model["supportedGenerationMethods"]
    if (Array.isArray(methods) && !methods.includes("generateContent")) return []
    return [model["name"].replace(/^models\//, "")]
  })
}

/** The URL of a model's method under a base URL written with or without a trailing slash. */
export const methodUrl = (baseUrl: string, modelId: string, stream: boolean): string =>
  `${baseUrl.replace(/\/+$/, "")}/models/${encodeURIComponent(modelId)}:${
    stream ? "streamGenerateContent?alt=sse" : "generateContent"
  }`

type Reason = ProviderError["reason"]

export const make = (options: OpenAiCompatibleOptions): Effect.Effect<Provider, never, UpstreamTransport> =>
  Effect.gen(function*() {
    const transport = yield* UpstreamTransport
    const timeouts = {
      firstByte: options.timeouts.firstByte,
      idle: options.timeouts.idle,
      total: options.timeouts.total
    }
    const headers: Record<string, string> = {}
    for (const [name, value] of Object.entries(options.headers)) headers[name.toLowerCase()] = value
    headers["content-type"] = "application/json"
    if (options.apiKey !== undefined) headers["x-goog-api-key"] = Redacted.value(options.apiKey)

    const fail = (reason: Reason) => new ProviderError({ provider: options.name, reason })
    const fromTransportError = (error: UpstreamTransportError) => fail(reasonFromTransportError(error))

    const send = Effect.fnUntraced(function*(call: ProviderCall, stream: boolean) {
      const response = yield* transport.send({
        url: methodUrl(options.baseUrl, call.modelId, stream),
        headers: { ...headers, "x-request-id": call.requestId },
        body: JSON.stringify(requestBody(call)),
        timeouts
      }).pipe(Effect.mapError(fromTransportError))
      if (response.status >= 200 && response.status < 300) return response
      const body = yield* response.text.pipe(
        Effect.catch(() => Effect.succeed("")),
        Effect.onInterrupt(() => response.cancel)
      )
      return yield* Effect.fail(fail(withRetryAfter(decodeGeminiError(response.status, body), response.headers)))
    })

    const complete = Effect.fnUntraced(function*(call: ProviderCall) {
      const response = yield* send(call, false)
      const body = yield* response.text.pipe(
        Effect.mapError(fromTransportError),
        Effect.onInterrupt(() => response.cancel)
      )
      const completion = decodeResponse(body, call.modelId)
      if (Result.isFailure(completion)) return yield* Effect.fail(fail(completion.failure))
      return completion.success
    })

    const open = Effect.fnUntraced(function*(call: ProviderCall, scope: Scope.Scope) {
      const response = yield* send(call, true)
      if ((response.headers["content-type"] ?? "").startsWith("application/json")) {
        const body = yield* response.text.pipe(Effect.mapError(fromTransportError))
        const decoded = decodeResponse(body, call.modelId)
        return yield* Effect.fail(fail(
          Result.isFailure(decoded)
            ? decoded.failure
            : new UpstreamBadResponse({ message: "upstream answered a streaming request with JSON, not SSE" })
        ))
      }
      const { finalizer, pull } = sseChunks(response, {
        decode: streamDecoder(call.modelId),
        fail,
        fromTransportError,
        cut: "upstream stream ended before its finish reason"
      })
      yield* Scope.addFinalizer(scope, finalizer)
      return pull
    })

    const listModels = listModelIds(
      transport,
      options.name,
      { url: `${options.baseUrl.replace(/\/+$/, "")}/models?pageSize=1000`, headers },
      geminiModelIds
    )

    return {
      name: options.name,
      adapter: "gemini",
      models: options.models,
      complete,
      open,
      dropped: droppedFields,
      listModels
    } satisfies Provider
  })
