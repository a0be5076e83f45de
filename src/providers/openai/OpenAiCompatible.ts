/**
 * The adapter for every upstream that speaks OpenAI's chat-completions API (OpenAI, Groq, Together,
 * Mistral, DeepSeek, OpenRouter, vLLM, llama.cpp, Ollama). One `Provider` per configured instance;
 * instances differ only in URL, key, extra headers and timeouts. HTTP, transport and decode failures
 * are translated into `ProviderError` here, where they enter; the wire mapping is in `OpenAiMapping.ts`.
 */
import { Clock, Duration, Effect, Redacted, Result, Stream } from "effect"
import { Sse } from "effect/encoding"
import { HttpClient, HttpClientError, HttpClientRequest } from "effect/http"
import type { HttpClientResponse } from "effect/http"
import type { Completion, CompletionChunk } from "../../chat/ChatWire.ts"
import { annotateGenAi, traceGenAiStream } from "../../observability/GenAi.ts"
import { hotSpan } from "../../Tracing.ts"
import type { Provider, ProviderCall } from "../Provider.ts"
import {
  ProviderError,
  ProviderUnavailable,
  UpstreamBadResponse,
  UpstreamStatus,
  UpstreamTimeout,
  UpstreamUnreachable
} from "../ProviderError.ts"
import type { TimeoutPhase } from "../ProviderError.ts"
import { buildRequestBody, decodeChunk, decodeCompletion, decodeErrorResponse } from "./OpenAiMapping.ts"

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

/** When the upstream last sent bytes, on the Effect clock (so tests can drive it). */
interface Activity {
  readonly clock: Clock.Clock
  at: number
}

export const adapter = "openai-compatible"

/** Where `chat/completions` lives under a base URL written with or without a trailing slash. */
export const completionsUrl = (baseUrl: string): string => `${baseUrl.replace(/\/+$/, "")}/chat/completions`

/**
 * The reason for a failure of the HTTP client. Reading a body fails with `DecodeError` when the
 * connection breaks part-way, so that is the connection's fault, not the payload's.
 */
/** undici's own timeout errors (its connect timeout, say), by code: the same phases as this adapter's. */
const undiciTimeout = (cause: unknown): TimeoutPhase | undefined => {
  const code = typeof cause === "object" && cause !== null && "code" in cause ? cause.code : undefined
  return code === "UND_ERR_HEADERS_TIMEOUT"
    ? "first_byte"
    : code === "UND_ERR_BODY_TIMEOUT"
    ? "idle"
    : code === "UND_ERR_CONNECT_TIMEOUT"
    ? "connect"
    : undefined
}

const reasonFromClientError = (error: HttpClientError.HttpClientError): Reason => {
  const reason = error.reason
  switch (reason._tag) {
    case "TransportError":
    case "DecodeError": {
      const phase = undiciTimeout(reason.cause)
      return phase === undefined ? new UpstreamUnreachable({ message: reason.message }) : new UpstreamTimeout({ phase })
    }
    case "EmptyBodyError":
      return new UpstreamBadResponse({ message: "upstream returned an empty body" })
    case "StatusCodeError":
      return new UpstreamStatus({ status: reason.response.status, message: reason.message })
    case "InvalidUrlError":
    case "EncodeError":
      return new ProviderUnavailable({ message: reason.message })
  }
}

const reasonFromSseError = (error: Sse.Retry | Sse.SseError): Reason =>
  Sse.Retry.is(error)
    // The gateway cannot resume a generation, so a reconnect request is a broken stream.
    ? new UpstreamBadResponse({ message: "upstream sent an SSE retry field; reconnecting is not supported" })
    : new UpstreamBadResponse({ message: error.message })

export const make = (options: OpenAiCompatibleOptions): Effect.Effect<Provider, never, HttpClient.HttpClient> =>
  Effect.gen(function*() {
    const client = yield* HttpClient.HttpClient
    const url = completionsUrl(options.baseUrl)
    const { firstByte, idle, total } = options.timeouts

    const fail = (reason: Reason) => new ProviderError({ provider: options.name, reason })
    const timedOut = (phase: TimeoutPhase) => Effect.fail(fail(new UpstreamTimeout({ phase })))
    const fromClientError = (error: HttpClientError.HttpClientError) => fail(reasonFromClientError(error))

    const request = (call: ProviderCall, stream: boolean) => {
      const base = HttpClientRequest.post(url).pipe(
        // Configured headers first, so they cannot replace the ones this adapter is responsible for.
        HttpClientRequest.setHeaders(options.headers),
        HttpClientRequest.setHeader("x-request-id", call.requestId),
        HttpClientRequest.bodyJsonUnsafe(buildRequestBody(call, stream))
      )
      return options.apiKey === undefined ? base : HttpClientRequest.bearerToken(base, options.apiKey)
    }

    /** Sends the call and succeeds with a 2xx response whose body is still unread. */
    const send = Effect.fnUntraced(function*(call: ProviderCall, stream: boolean) {
      const sent = client.execute(request(call, stream)).pipe(Effect.mapError(fromClientError))
      const response = yield* firstByte === undefined
        ? sent
        : Effect.timeoutOrElse(sent, { duration: firstByte, orElse: () => timedOut("first_byte") })
      if (response.status >= 200 && response.status < 300) return response
      // An unreadable error body still leaves the status worth reporting.
      const body = yield* response.text.pipe(Effect.catch(() => Effect.succeed("")))
      return yield* Effect.fail(fail(decodeErrorResponse(response.status, body)))
    })

    const complete = Effect.fnUntraced(
      function*(call: ProviderCall) {
        yield* Effect.annotateCurrentSpan({ "gateway.provider": options.name, "gateway.model": call.modelId })
        const genAi = { system: options.name, requestModel: call.modelId }
        yield* annotateGenAi(genAi)
        const response = yield* send(call, false)
        const body = yield* response.text.pipe(Effect.mapError(fromClientError))
        const completion = decodeCompletion(body, call.modelId)
        if (Result.isFailure(completion)) return yield* Effect.fail(fail(completion.failure))
        yield* annotateGenAi(genAi, completion.success)
        return completion.success
      },
      (effect): Effect.Effect<Completion, ProviderError> =>
        Effect.timeoutOrElse(effect, { duration: total, orElse: () => timedOut("total") }),
      hotSpan("OpenAiCompatible.complete")
    )

    const chunks = (
      response: HttpClientResponse.HttpClientResponse,
      modelId: string,
      activity: Activity
    ): Stream.Stream<CompletionChunk, ProviderError> =>
      Stream.suspend(() => {
        // Set when `[DONE]` arrives; a body that ends without it was cut off.
        let done = false
        // a failure met after some chunks of the same piece of body: those chunks go out first
        let failure: ProviderError | undefined
        const text = new TextDecoder()
        let events: Array<Sse.AnyEvent> = []
        const parser = Sse.makeParser((event) => void events.push(event))
        // one stage per piece of body, not one per event: text, SSE (Effect's own parser), JSON; the
        // per-element cost of a chain of stream operators is most of a stream's cost otherwise
        const decodeBytes = (bytes: Uint8Array): ReadonlyArray<CompletionChunk> => {
          // raw bytes, so SSE comments (keep-alives) count as signs of life for the idle watchdog
          activity.at = activity.clock.currentTimeMillisUnsafe()
          const overflow = parser.feed(text.decode(bytes, { stream: true }))
          if (overflow !== undefined) {
            failure = fail(reasonFromSseError(overflow))
            return []
          }
          const parsed = events
          events = []
          const out: Array<CompletionChunk> = []
          for (const event of parsed) {
            if (event._tag === "Retry") {
              failure = fail(reasonFromSseError(event))
              break
            }
            if (event.data.trim() === "[DONE]") {
              done = true
              break
            }
            const chunk = decodeChunk(event.data, modelId)
            if (Result.isFailure(chunk)) {
              failure = fail(chunk.failure)
              break
            }
            out.push(chunk.success)
          }
          return out
        }
        return response.stream.pipe(
          Stream.mapError(fromClientError),
          Stream.map(decodeBytes),
          // stop reading at [DONE], even if the upstream keeps the body open after it; per piece of
          // body, so the chunks that came with [DONE] are still emitted
          Stream.takeUntil(() => done || failure !== undefined),
          Stream.flattenIterable,
          Stream.concat(Stream.suspend(() =>
            failure !== undefined
              ? Stream.fail(failure)
              : done
              ? Stream.empty
              : Stream.fail(fail(new UpstreamUnreachable({ message: "upstream stream ended before [DONE]" })))
          ))
        )
      })

    /**
     * Some servers answer a streaming request with a JSON body: an error wrapped in a 200 (OpenRouter)
     * or a whole completion (servers that ignore `stream`). Report which, instead of a cut stream.
     */
    const notStreamed = Effect.fnUntraced(function*(response: HttpClientResponse.HttpClientResponse, modelId: string) {
      const body = yield* response.text.pipe(Effect.mapError(fromClientError))
      const decoded = decodeCompletion(body, modelId)
      return yield* Effect.fail(fail(
        Result.isFailure(decoded) && decoded.failure._tag === "UpstreamStatus"
          ? decoded.failure
          : new UpstreamBadResponse({ message: "upstream answered a streaming request with JSON, not SSE" })
      ))
    })

    /**
     * Fails with the phase that ran out: total since the start, or idle since the last bytes. One fiber
     * per stream that wakes about once per idle period, where a timer per chunk would cost far more.
     */
    const watchdog = (activity: Activity) =>
      Effect.gen(function*() {
        const totalMs = Duration.toMillis(total)
        const idleMs = idle === undefined ? Infinity : Duration.toMillis(idle)
        const start = activity.clock.currentTimeMillisUnsafe()
        for (;;) {
          const now = activity.clock.currentTimeMillisUnsafe()
          if (now - start >= totalMs) return yield* timedOut("total")
          if (now - activity.at >= idleMs) return yield* timedOut("idle")
          // before the response there is no activity yet: check again an idle period from now
          const idleEnd = activity.at === Infinity ? now + idleMs : activity.at + idleMs
          yield* Effect.sleep(Duration.millis(Math.min(start + totalMs, idleEnd) - now))
        }
      })

    const stream = (call: ProviderCall): Stream.Stream<CompletionChunk, ProviderError> =>
      Stream.unwrap(Effect.gen(function*() {
        const clock = yield* Clock.Clock
        // the first-byte phase has its own timeout in `send`; idle counts from the response on
        const activity: Activity = { clock, at: Infinity }
        const body = Stream.unwrap(Effect.map(send(call, true), (response) => {
          activity.at = clock.currentTimeMillisUnsafe()
          return (response.headers["content-type"] ?? "").startsWith("application/json")
            ? Stream.fromEffect(notStreamed(response, call.modelId))
            : chunks(response, call.modelId, activity)
        }))
        return body.pipe(Stream.interruptWhen(watchdog(activity)))
      })).pipe(
        traceGenAiStream({ system: options.name, requestModel: call.modelId }),
        Stream.withSpan("OpenAiCompatible.stream", {
          attributes: { "gateway.provider": options.name, "gateway.model": call.modelId },
          captureStackTrace: false
        })
      )

    return { name: options.name, adapter, models: options.models, complete, stream } satisfies Provider
  })
