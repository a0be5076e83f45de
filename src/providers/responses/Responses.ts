/**
 * The adapter for OpenAI's Responses API (`POST {base}/responses`): `openai-responses` sends every call
 * there (Responses-only models such as the `-pro` and codex ones), and `openai`, OpenAI itself, sends
 * there the calls whose client wrote the Responses format (Codex: lossless, the request as sent) and
 * every other call to chat completions, as `openai-compatible` does. Errors have OpenAI's shape and
 * the same failover rules as chat completions; the mapping is in `ResponsesRequest.ts` and
 * `ResponsesResponse.ts`.
 */
import { Effect, Redacted, Result, Scope } from "effect"
import { dataIds, listModelIds } from "../ModelList.ts"
import * as OpenAiCompatible from "../openai/OpenAiCompatible.ts"
import { decodeErrorResponse } from "../openai/OpenAiMapping.ts"
import type { Provider, ProviderCall } from "../Provider.ts"
import { ProviderError, UpstreamBadResponse } from "../ProviderError.ts"
import { withRetryAfter } from "../RetryAfter.ts"
import { sseChunks } from "../SseChunks.ts"
import { reasonFromTransportError } from "../UpstreamReasons.ts"
import { UpstreamTransport, type UpstreamTransportError } from "../UpstreamTransport.ts"
import { droppedFields, FORMAT, requestBody } from "./ResponsesRequest.ts"
import { decodeResponse, streamDecoder } from "./ResponsesResponse.ts"

export const DEFAULT_OPENAI_BASE_URL = "https://api.openai.com/v1"

/** Where `responses` lives under a base URL written with or without a trailing slash. */
export const responsesUrl = (baseUrl: string): string => `${baseUrl.replace(/\/+$/, "")}/responses`

type Reason = ProviderError["reason"]

/** Every call to `/responses`. */
export const make = (
  options: OpenAiCompatible.OpenAiCompatibleOptions
): Effect.Effect<Provider, never, UpstreamTransport> =>
  Effect.gen(function*() {
    const transport = yield* UpstreamTransport
    const url = responsesUrl(options.baseUrl)
    const timeouts = {
      firstByte: options.timeouts.firstByte,
      idle: options.timeouts.idle,
      total: options.timeouts.total
    }
    const headers: Record<string, string> = {}
    for (const [name, value] of Object.entries(options.headers)) headers[name.toLowerCase()] = value
    headers["content-type"] = "application/json"
    if (options.apiKey !== undefined) headers["authorization"] = `Bearer ${Redacted.value(options.apiKey)}`

    const fail = (reason: Reason) => new ProviderError({ provider: options.name, reason })
    const fromTransportError = (error: UpstreamTransportError) => fail(reasonFromTransportError(error))

    const send = Effect.fnUntraced(function*(call: ProviderCall, stream: boolean) {
      const response = yield* transport.send({
        url,
        headers: { ...headers, "x-request-id": call.requestId },
        body: JSON.stringify(requestBody(call, stream)),
        timeouts
      }).pipe(Effect.mapError(fromTransportError))
      if (response.status >= 200 && response.status < 300) return response
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
      const completion = decodeResponse(body, call.modelId)
      if (Result.isFailure(completion)) return yield* Effect.fail(fail(completion.failure))
      return completion.success
    })

    const open = Effect.fnUntraced(function*(call: ProviderCall, scope: Scope.Scope) {
      const response = yield* send(call, true)
      if ((response.headers["content-type"] ?? "").startsWith("application/json")) {
        // an error in a 200, or a whole response from a server that ignores `stream`
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
        cut: "upstream stream ended before response.completed"
      })
      yield* Scope.addFinalizer(scope, finalizer)
      return pull
    })

    return {
      name: options.name,
      adapter: "openai-responses",
      nativeFormats: [FORMAT],
      models: options.models,
      complete,
      open,
      dropped: droppedFields,
      listModels: listModelIds(transport, options.name, {
        url: `${options.baseUrl.replace(/\/+$/, "")}/models`,
        headers
      }, dataIds)
    } satisfies Provider
  })

/** OpenAI itself: a Responses client's calls to `/responses` as they came, every other to chat completions. */
export const makeOpenAi = (
  options: OpenAiCompatible.OpenAiCompatibleOptions
): Effect.Effect<Provider, never, UpstreamTransport> =>
  Effect.gen(function*() {
    const chat = yield* OpenAiCompatible.make(options)
    const responses = yield* make(options)
    const pick = (call: ProviderCall): Provider => (call.native?.request.format === FORMAT ? responses : chat)
    return {
      name: options.name,
      adapter: "openai",
      nativeFormats: [FORMAT],
      models: options.models,
      complete: (call) => pick(call).complete(call),
      open: (call, scope) => pick(call).open(call, scope),
      dropped: (call) => pick(call).dropped?.(call) ?? [],
      ...(chat.listModels === undefined ? {} : { listModels: chat.listModels })
    } satisfies Provider
  })
