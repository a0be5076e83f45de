/**
 * The adapter for Anthropic's Messages API (`adapter: anthropic`; `ANTHROPIC_API_KEY` serves author
 * `anthropic`). A thin client over `UpstreamTransport`: the request is `AnthropicRequest.ts`'s, the
 * answers, events and errors are read by `AnthropicResponse.ts`, and transport failures become
 * `ProviderError` reasons here, where they enter. No spans: the core puts them on (`core/Attempt.ts`).
 *
 * Requests go to `${baseUrl}/v1/messages` (a base URL may be written with or without `/v1`) with
 * `x-api-key`, `anthropic-version` (the client's, else the configured one, else `2023-06-01`),
 * `anthropic-beta` (the client's, else the configured one), `content-type` and `x-request-id`.
 * Failover reads `UpstreamStatus.retryable`: 408, 429 and every 5xx, Anthropic's 529
 * `overloaded_error` among them; a stream's `error` event is 529, 500 or 502 by its type.
 */
import { type Duration, Effect, Redacted, Result, Scope } from "effect"
import { dataIds, listModelIds } from "../ModelList.ts"
import type { Provider, ProviderCall } from "../Provider.ts"
import { ProviderError, UpstreamBadResponse } from "../ProviderError.ts"
import { withRetryAfter } from "../RetryAfter.ts"
import { sseChunks } from "../SseChunks.ts"
import { reasonFromTransportError } from "../UpstreamReasons.ts"
import { type UpstreamResponse, UpstreamTransport, type UpstreamTransportError } from "../UpstreamTransport.ts"
import { ANTHROPIC_VERSION, countTokensBody, droppedFields, forwardedHeaders, requestBody } from "./AnthropicRequest.ts"
import { decodeError, decodeMessage, streamDecoder } from "./AnthropicResponse.ts"

export const adapter = "anthropic"

export const DEFAULT_BASE_URL = "https://api.anthropic.com"

/** The options of OpenAI-compatible's `make`, with a base URL that may be left out. */
export interface AnthropicOptions {
  /** Instance name, e.g. `anthropic`; reported as `ProviderError.provider`. */
  readonly name: string
  /** Default `DEFAULT_BASE_URL`; requests go to `${baseUrl}/v1/messages`. */
  readonly baseUrl?: string | undefined
  /** Sent as `x-api-key`; `undefined` sends none (a proxy that adds it). */
  readonly apiKey: Redacted.Redacted<string> | undefined
  /** Extra headers; a configured `anthropic-version` or `anthropic-beta` applies when the client sent none. */
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

/** `${base}/v1/<path>`, for a base URL written with or without `/v1` and a trailing slash. */
export const messagesUrl = (baseUrl: string, path = "messages"): string =>
  `${baseUrl.replace(/\/+$/, "").replace(/\/v1$/, "")}/v1/${path}`

type Reason = ProviderError["reason"]

export const make = (options: AnthropicOptions): Effect.Effect<Provider, never, UpstreamTransport> =>
  Effect.gen(function*() {
    const transport = yield* UpstreamTransport
    const baseUrl = options.baseUrl === undefined || options.baseUrl === "" ? DEFAULT_BASE_URL : options.baseUrl
    const url = messagesUrl(baseUrl)
    const countUrl = messagesUrl(baseUrl, "messages/count_tokens")
    const timeouts = {
      firstByte: options.timeouts.firstByte,
      idle: options.timeouts.idle,
      total: options.timeouts.total
    }
    // configured headers first, so they cannot replace the ones this adapter is responsible for
    const configured: Record<string, string> = {}
    for (const [name, value] of Object.entries(options.headers)) configured[name.toLowerCase()] = value
    const headers: Record<string, string> = { ...configured, "content-type": "application/json" }
    if (options.apiKey !== undefined) headers["x-api-key"] = Redacted.value(options.apiKey)

    const fail = (reason: Reason) => new ProviderError({ provider: options.name, reason })
    const fromTransportError = (error: UpstreamTransportError) => fail(reasonFromTransportError(error))

    /** Sends a body and succeeds with a 2xx response whose body is still unread. */
    const send = Effect.fnUntraced(function*(target: string, call: ProviderCall, body: unknown) {
      const response = yield* transport.send({
        url: target,
        headers: { ...headers, ...forwardedHeaders(call, configured), "x-request-id": call.requestId },
        body: JSON.stringify(body),
        timeouts
      }).pipe(Effect.mapError(fromTransportError))
      if (response.status >= 200 && response.status < 300) return response
      // an unreadable error body still leaves the status worth reporting
      const text = yield* response.text.pipe(
        Effect.catch(() => Effect.succeed("")),
        Effect.onInterrupt(() => response.cancel)
      )
      return yield* Effect.fail(fail(withRetryAfter(decodeError(response.status, text), response.headers)))
    })

    const complete = Effect.fnUntraced(function*(call: ProviderCall) {
      const response = yield* send(url, call, requestBody(call, false))
      const text = yield* response.text.pipe(
        Effect.mapError(fromTransportError),
        Effect.onInterrupt(() => response.cancel)
      )
      const completion = decodeMessage(text, call.modelId)
      if (Result.isFailure(completion)) return yield* Effect.fail(fail(completion.failure))
      return completion.success
    })

    /**
     * A JSON body to a streaming request: an error in a 200 (passed on as that error), or a whole message
     * from a server that ignored `stream` (a bad response, instead of a cut stream).
     */
    const notStreamed = Effect.fnUntraced(function*(response: UpstreamResponse, modelId: string) {
      const body = yield* response.text.pipe(Effect.mapError(fromTransportError))
      const decoded = decodeMessage(body, modelId)
      return yield* Effect.fail(fail(
        Result.isFailure(decoded) && decoded.failure._tag === "UpstreamStatus"
          ? decoded.failure
          : new UpstreamBadResponse({ message: "upstream answered a streaming request with JSON, not SSE" })
      ))
    })

    /**
     * The answer's chunks; the upstream body is released (after `message_stop`) or aborted when `scope`
     * closes. A generator function made once per provider: one made per call would outlive it.
     */
    const open = Effect.fnUntraced(function*(call: ProviderCall, scope: Scope.Scope) {
      const response = yield* send(url, call, requestBody(call, true))
      if ((response.headers["content-type"] ?? "").startsWith("application/json")) {
        yield* Scope.addFinalizer(scope, response.cancel)
        return notStreamed(response, call.modelId)
      }
      const { finalizer, pull } = sseChunks(response, {
        decode: streamDecoder(call.modelId),
        fail,
        fromTransportError,
        cut: "upstream stream ended before message_stop"
      })
      // the upstream body lives as long as the answer: a consumer that stops or leaves aborts it
      yield* Scope.addFinalizer(scope, finalizer)
      return pull
    })

    /** The upstream's own count of `call`'s input tokens (`/v1/messages/count_tokens`). */
    const countTokens = Effect.fnUntraced(function*(call: ProviderCall) {
      const response = yield* send(countUrl, call, countTokensBody(call))
      const text = yield* response.text.pipe(
        Effect.mapError(fromTransportError),
        Effect.onInterrupt(() => response.cancel)
      )
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
          fail(
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
      complete,
      open,
      dropped: droppedFields,
      countTokens,
      listModels: listModelIds(
        transport,
        options.name,
        {
          url: messagesUrl(baseUrl, "models?limit=1000"),
          headers: { ...headers, "anthropic-version": configured["anthropic-version"] ?? ANTHROPIC_VERSION }
        },
        dataIds
      )
    } satisfies Provider
  })
