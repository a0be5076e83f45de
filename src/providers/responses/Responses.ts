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
import { decodeErrorResponse } from "../openai/OpenAiMapping.ts"
import type { Provider, ProviderCall } from "../Provider.ts"
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
  body: requestBody,
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
