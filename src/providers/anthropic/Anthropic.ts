/**
 * The adapter for Anthropic's Messages API (`adapter: anthropic`; `ANTHROPIC_API_KEY` serves author
 * `anthropic`). A thin client over `UpstreamTransport`: the request is `AnthropicRequest.ts`'s, the
 * answers and events are read by `AnthropicResponse.ts`, transport failures become `ProviderError`
 * reasons here, where they enter. Anthropic's 529 `overloaded_error` is a 5xx, so it fails over.
 */
import { Effect, Redacted, Result, Scope } from "effect"
import type { OpenAiCompatibleOptions } from "../openai/OpenAiCompatible.ts"
import type { Provider, ProviderCall } from "../Provider.ts"
import { ProviderError, UpstreamBadResponse } from "../ProviderError.ts"
import { sseChunks } from "../SseChunks.ts"
import { reasonFromTransportError } from "../UpstreamReasons.ts"
import { type UpstreamResponse, UpstreamTransport, type UpstreamTransportError } from "../UpstreamTransport.ts"
import { countTokensBody, droppedFields, forwardedHeaders, requestBody } from "./AnthropicRequest.ts"
import { decodeError, decodeMessage, streamDecoder } from "./AnthropicResponse.ts"

export const adapter = "anthropic"

export const DEFAULT_BASE_URL = "https://api.anthropic.com"

/** `${base}/v1/messages`, for a base URL written with or without `/v1` and a trailing slash. */
export const messagesUrl = (baseUrl: string, path = "messages"): string =>
  `${baseUrl.replace(/\/+$/, "").replace(/\/v1$/, "")}/v1/${path}`

type Reason = ProviderError["reason"]

export const make = (options: OpenAiCompatibleOptions): Effect.Effect<Provider, never, UpstreamTransport> =>
  Effect.gen(function*() {
    const transport = yield* UpstreamTransport
    const url = messagesUrl(options.baseUrl)
    const countUrl = messagesUrl(options.baseUrl, "messages/count_tokens")
    const timeouts = { firstByte: options.timeouts.firstByte, idle: options.timeouts.idle, total: options.timeouts.total }
    // configured headers first, so they cannot replace the ones this adapter is responsible for
    const headers: Record<string, string> = {}
    for (const [name, value] of Object.entries(options.headers)) headers[name.toLowerCase()] = value
    headers["content-type"] = "application/json"
    if (options.apiKey !== undefined) headers["x-api-key"] = Redacted.value(options.apiKey)

    const fail = (reason: Reason) => new ProviderError({ provider: options.name, reason })
    const fromTransportError = (error: UpstreamTransportError) => fail(reasonFromTransportError(error))

    /** Sends a body and succeeds with a 2xx response whose body is still unread. */
    const send = Effect.fnUntraced(function*(target: string, call: ProviderCall, body: unknown) {
      const response = yield* transport.send({
        url: target,
        headers: { ...headers, ...forwardedHeaders(call), "x-request-id": call.requestId },
        body: JSON.stringify(body),
        timeouts
      }).pipe(Effect.mapError(fromTransportError))
      if (response.status >= 200 && response.status < 300) return response
      const text = yield* response.text.pipe(Effect.catch(() => Effect.succeed("")), Effect.onInterrupt(() => response.cancel))
      return yield* Effect.fail(fail(decodeError(response.status, text)))
    })

    const complete = Effect.fnUntraced(function*(call: ProviderCall) {
      const response = yield* send(url, call, requestBody(call, false))
      const text = yield* response.text.pipe(Effect.mapError(fromTransportError), Effect.onInterrupt(() => response.cancel))
      const completion = decodeMessage(text, call.modelId)
      if (Result.isFailure(completion)) return yield* Effect.fail(fail(completion.failure))
      return completion.success
    })

    /** A JSON body to a streaming request: an error, or a whole message from a server that ignored `stream`. */
    const notStreamed = Effect.fnUntraced(function*(response: UpstreamResponse, modelId: string) {
      const body = yield* response.text.pipe(Effect.mapError(fromTransportError))
      const decoded = decodeMessage(body, modelId)
      return yield* Effect.fail(fail(
        Result.isFailure(decoded) && decoded.failure._tag === "UpstreamStatus"
          ? decoded.failure
          : new UpstreamBadResponse({ message: "upstream answered a streaming request with JSON, not SSE" })
      ))
    })

    const open = Effect.fnUntraced(function*(call: ProviderCall, scope: Scope.Scope) {
      const response = yield* send(url, call, requestBody(call, true))
      if ((response.headers["content-type"] ?? "").startsWith("application/json")) {
        yield* Scope.addFinalizer(scope, response.cancel)
        return notStreamed(response, call.modelId)
      }
      const { finalizer, pull } = sseChunks(response, streamDecoder(call.modelId), fail, fromTransportError, "upstream stream ended before message_stop")
      yield* Scope.addFinalizer(scope, finalizer)
      return pull
    })

    const countTokens = Effect.fnUntraced(function*(call: ProviderCall) {
      const response = yield* send(countUrl, call, countTokensBody(call))
      const text = yield* response.text.pipe(Effect.mapError(fromTransportError))
      let counted: unknown
      try {
        counted = JSON.parse(text)
      } catch {
        counted = undefined
      }
      const tokens = typeof counted === "object" && counted !== null && "input_tokens" in counted ? counted.input_tokens : undefined
      if (typeof tokens !== "number") {
        return yield* Effect.fail(fail(new UpstreamBadResponse({ message: `count_tokens answered without input_tokens: ${text.slice(0, 200)}` })))
      }
      return tokens
    })

    return {
      name: options.name,
      adapter,
      models: options.models,
      complete,
      open,
      dropped: droppedFields,
      countTokens
    } satisfies Provider
  })
