/**
 * The adapter for Anthropic's Messages API (`adapter: anthropic`; `ANTHROPIC_API_KEY` serves author
 * `anthropic`). The HTTP exchange is `HttpAdapter.ts`'s: the request is `AnthropicRequest.ts`'s, the
 * answers, events and errors are read by `AnthropicResponse.ts`. No spans: the core puts them on
 * (`core/Attempt.ts`).
 *
 * Requests go to `${baseUrl}/v1/messages` (a base URL may be written with or without `/v1`) with
 * `x-api-key`, `anthropic-version` (the client's, else the configured one, else `2023-06-01`),
 * `anthropic-beta` (the client's, else the configured one), `content-type` and `x-request-id`.
 * Failover reads `UpstreamStatus.retryable`: 408, 429 and every 5xx, Anthropic's 529
 * `overloaded_error` among them; a stream's `error` event is 529, 500 or 502 by its type.
 */
import { Effect } from "effect"
import { type HttpFormat, type HttpOptions, lowerCaseKeys, makeHttpCalls } from "../HttpAdapter.ts"
import { dataIds, listModelIds } from "../ModelList.ts"
import type { Provider, ProviderCall } from "../Provider.ts"
import { UpstreamBadResponse } from "../ProviderError.ts"
import { UpstreamTransport } from "../UpstreamTransport.ts"
import { ANTHROPIC_VERSION, countTokensBody, droppedFields, forwardedHeaders, requestBody } from "./AnthropicRequest.ts"
import { decodeError, decodeMessage, streamDecoder } from "./AnthropicResponse.ts"
import { withCacheBreakpoints } from "./CacheBreakpoints.ts"

export const adapter = "anthropic"

export const DEFAULT_BASE_URL = "https://api.anthropic.com"

/**
 * The options of OpenAI-compatible's `make`, with a base URL that may be left out. The key goes in
 * `x-api-key` (none: a proxy that adds it); a configured `anthropic-version` or `anthropic-beta` applies
 * when the client sent none.
 */
export interface AnthropicOptions extends HttpOptions {
  /** Default `DEFAULT_BASE_URL`; requests go to `${baseUrl}/v1/messages`. */
  readonly baseUrl?: string | undefined
  readonly models: ReadonlyArray<string>
}

/** `${base}/v1/<path>`, for a base URL written with or without `/v1` and a trailing slash. */
export const messagesUrl = (baseUrl: string, path = "messages"): string =>
  `${baseUrl.replace(/\/+$/, "").replace(/\/v1$/, "")}/v1/${path}`

/** The Messages API over HTTP: `x-api-key`, the version and betas of each call. */
const messagesFormat = (url: string, configured: Readonly<Record<string, string>>): HttpFormat => ({
  auth: { header: "x-api-key", value: (key) => key },
  url: () => url,
  // a body written from another format gets the prompt-cache breakpoints its client could not set
  body: (call, stream) =>
    call.native?.request.format === "anthropic"
      ? requestBody(call, stream)
      : withCacheBreakpoints(requestBody(call, stream)),
  callHeaders: (call) => forwardedHeaders(call, configured),
  decodeError,
  decodeWhole: decodeMessage,
  decodeEvent: streamDecoder,
  cut: "upstream stream ended before message_stop"
})

export const make = (options: AnthropicOptions): Effect.Effect<Provider, never, UpstreamTransport> =>
  Effect.gen(function*() {
    const transport = yield* UpstreamTransport
    const baseUrl = options.baseUrl === undefined || options.baseUrl === "" ? DEFAULT_BASE_URL : options.baseUrl
    // lower-cased, so a configured `anthropic-version` or `anthropic-beta` is found
    const configured = lowerCaseKeys(options.headers)
    const calls = yield* makeHttpCalls(options, messagesFormat(messagesUrl(baseUrl), configured))
    const countUrl = messagesUrl(baseUrl, "messages/count_tokens")

    /** The upstream's own count of `call`'s input tokens (`/v1/messages/count_tokens`). */
    const countTokens = Effect.fnUntraced(function*(call: ProviderCall) {
      const text = yield* calls.read(yield* calls.send(countUrl, call, countTokensBody(call)))
      let counted: unknown
      try {
        counted = JSON.parse(text)
      } catch {
        counted = undefined
      }
      const tokens = typeof counted === "object" && counted !== null && "input_tokens" in counted
        ? counted.input_tokens
        : undefined
      if (typeof tokens !== "number") {
        return yield* Effect.fail(
          calls.fail(
            new UpstreamBadResponse({ message: `count_tokens answered without input_tokens: ${text.slice(0, 200)}` })
          )
        )
      }
      return tokens
    })

    return {
      name: options.name,
      // a Messages client's request (Claude Code's) goes out as it came: thinking signatures, cache
      // breakpoints and betas intact
      nativeFormats: ["anthropic"],
      adapter,
      models: options.models,
      complete: calls.complete,
      open: calls.open,
      dropped: droppedFields,
      countTokens,
      listModels: listModelIds(transport, {
        provider: options.name,
        request: {
          url: messagesUrl(baseUrl, "models?limit=1000"),
          headers: { ...calls.headers, "anthropic-version": configured["anthropic-version"] ?? ANTHROPIC_VERSION }
        },
        ids: dataIds
      })
    } satisfies Provider
  })
