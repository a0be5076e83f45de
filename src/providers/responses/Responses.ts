/**
 * The adapter for OpenAI's Responses API (`POST {base}/responses`): `openai-responses` sends every call
 * there (Responses-only models such as the `-pro` and codex ones), and `openai`, OpenAI itself, sends
 * there the calls whose client wrote the Responses format (Codex: lossless, the request as sent) and
 * every other call to chat completions, as `openai-compatible` does. Errors have OpenAI's shape and
 * the same failover rules as chat completions; the mapping is in `ResponsesRequest.ts` and
 * `ResponsesResponse.ts`.
 */
import { Effect } from "effect"
import { bearerAuth, type HttpFormat } from "../HttpAdapter.ts"
import * as OpenAiCompatible from "../openai/OpenAiCompatible.ts"
import { decodeErrorResponse, withSessionCacheKey } from "../openai/OpenAiMapping.ts"
import type { Provider, ProviderCall } from "../Provider.ts"
import type { ProviderError } from "../ProviderError.ts"
import { UpstreamTransport } from "../UpstreamTransport.ts"
import { droppedFields, FORMAT, requestBody } from "./ResponsesRequest.ts"
import { decodeResponse, streamDecoder } from "./ResponsesResponse.ts"

export const DEFAULT_OPENAI_BASE_URL = "https://api.openai.com/v1"

/** Where `responses` lives under a base URL written with or without a trailing slash. */
export const responsesUrl = (baseUrl: string): string => `${baseUrl.replace(/\/+$/, "")}/responses`

/** The Responses API over HTTP: a bearer key, one URL, OpenAI's error shape. */
const responsesFormat = (url: string): HttpFormat => ({
  auth: bearerAuth,
  url: () => url,
  body: (call, stream) => withSessionCacheKey(requestBody(call, stream), call),
  decodeError: decodeErrorResponse,
  decodeWhole: decodeResponse,
  decodeEvent: streamDecoder,
  cut: "upstream stream ended before response.completed"
})

/** Every call to `/responses`. */
export const make = (
  options: OpenAiCompatible.OpenAiCompatibleOptions
): Effect.Effect<Provider, never, UpstreamTransport> =>
  OpenAiCompatible.makeOpenAiStyle(options, {
    adapter: "openai-responses",
    format: responsesFormat(responsesUrl(options.baseUrl)),
    nativeFormats: [FORMAT],
    dropped: droppedFields
  })

/**
 * A refusal that says the server has no `/responses` at all: 405, or a 404 that is not about the model
 * (OpenAI answers an unknown model with 404 `model_not_found`, which chat completions would repeat).
 */
export const responsesNotServed = (error: ProviderError): boolean => {
  const reason = error.reason
  if (reason._tag !== "UpstreamStatus") return false
  if (reason.status === 405) return true
  return reason.status === 404 && reason.code !== "model_not_found" && !/\bmodel\b/i.test(reason.message)
}

/**
 * OpenAI itself, or a server that speaks its API: a Responses client's calls to `/responses` as they
 * came, every other to chat completions. A server that serves chat completions only (older vLLM,
 * llama.cpp, DeepSeek, Mistral...) answers `/responses` with 404 or 405: that call goes as chat
 * completions instead, and once that works every later one does, from the start (`responses: false`
 * in the routing file says so up front).
 */
export const makeOpenAi = (
  options: OpenAiCompatible.OpenAiCompatibleOptions & { readonly responses?: boolean | undefined }
): Effect.Effect<Provider, never, UpstreamTransport> =>
  Effect.gen(function*() {
    // OpenAI's API takes a session's prompt_cache_key on chat completions too
    const chat = yield* OpenAiCompatible.make({ ...options, sessionCacheKey: true })
    const responses = yield* make(options)
    let chatOnly = options.responses === false
    const viaResponses = (call: ProviderCall) => !chatOnly && call.native?.request.format === FORMAT
    const pick = (call: ProviderCall): Provider => (viaResponses(call) ? responses : chat)
    /** `attempt` through `/responses`; on a server without it, `instead` (chat), remembered once it works. */
    const orChat = <A>(
      attempt: Effect.Effect<A, ProviderError>,
      instead: Effect.Effect<A, ProviderError>
    ): Effect.Effect<A, ProviderError> =>
      Effect.catchIf(attempt, responsesNotServed, (refused) =>
        Effect.tap(instead, () =>
          chatOnly ? Effect.void : Effect.andThen(
            Effect.sync(() => {
              chatOnly = true
            }),
            Effect.logWarning(
              "the provider does not serve /responses: Responses requests go to it as chat completions from now on",
              {
                provider: options.name,
                status: refused.reason._tag === "UpstreamStatus" ? refused.reason.status : null
              }
            )
          )))
    return {
      name: options.name,
      adapter: "openai",
      nativeFormats: [FORMAT],
      models: options.models,
      complete: (call) =>
        viaResponses(call) ? orChat(responses.complete(call), chat.complete(call)) : chat.complete(call),
      open: (call, scope) =>
        viaResponses(call) ? orChat(responses.open(call, scope), chat.open(call, scope)) : chat.open(call, scope),
      dropped: (call) =>
        pick(call).dropped?.(call) ?? [],
      ...(chat.listModels === undefined ? {} : { listModels: chat.listModels })
    } satisfies Provider
  })
