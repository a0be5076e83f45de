/**
 * What every HTTP upstream adapter does the same way, written once: its headers (the configured ones
 * first, so they cannot replace the ones the adapter is responsible for), sending a call and reading a
 * refusal's error body, reading a whole answer, a stream's events (`sseChunks`), and a JSON body where
 * a stream was asked for. An adapter gives its URL, auth and wire mapping as data (`HttpFormat`).
 *
 * Every body read here is read with its cancel registered, so a read the caller abandons never leaves
 * the connection open. A JSON body to a streaming request fails the call when it opens: an error
 * wrapped in a 200 (OpenRouter) as that error, anything else (a server that ignored `stream`) as a
 * bad response, instead of a stream cut short.
 */
import { type Duration, Effect, Redacted, Result, Scope } from "effect"
import type { Completion } from "../kernel/Canonical.ts"
import type { Provider, ProviderCall } from "./Provider.ts"
import {
  changedStatus,
  ProviderError,
  ProviderUnavailable,
  UpstreamBadResponse,
  type UpstreamStatus,
  UpstreamUnreachable
} from "./ProviderError.ts"
import { withRetryAfter } from "./RetryAfter.ts"
import { configuredSecrets, redactSecrets } from "./Secrets.ts"
import { type EventStep, sseChunks } from "./SseChunks.ts"
import { reasonFromTransportError } from "./UpstreamReasons.ts"
import { type UpstreamResponse, UpstreamTransport, type UpstreamTransportError } from "./UpstreamTransport.ts"

type Reason = ProviderError["reason"]

/** The options every HTTP adapter's instance has (a routing file's provider entry, resolved). */
export interface HttpOptions {
  /** Instance name, e.g. `openai`, `groq`; reported as `ProviderError.provider`. */
  readonly name: string
  /** `undefined` sends no key (a local server, a proxy that adds it). */
  readonly apiKey: Redacted.Redacted<string> | undefined
  /** Extra headers, sent first. */
  readonly headers: Readonly<Record<string, string>>
  readonly timeouts: {
    /** Until the response headers arrive; undefined: not enforced. */
    readonly firstByte?: Duration.Duration | undefined
    /** Longest silence between two pieces of a streamed body; undefined: not enforced. */
    readonly idle?: Duration.Duration | undefined
    /** The whole call: through the decoded body, or through the end of the stream. */
    readonly total: Duration.Duration
  }
}

/** How an upstream format is spoken over HTTP. */
export interface HttpFormat {
  /** The header the API key goes in, and how its value is written. */
  readonly auth: { readonly header: string; readonly value: (key: string) => string }
  /** Where a whole (`stream: false`) or streamed call goes. */
  readonly url: (call: ProviderCall, stream: boolean) => string
  readonly body: (call: ProviderCall, stream: boolean) => unknown
  /** Headers of one call beyond the instance's (Anthropic's version and betas, the client's or configured). */
  readonly callHeaders?: ((call: ProviderCall) => Readonly<Record<string, string>>) | undefined
  /** A refusal (a non-2xx status) and its body, as a reason. */
  readonly decodeError: (status: number, body: string) => UpstreamStatus
  readonly decodeWhole: (body: string, modelId: string) => Result.Result<Completion, Reason>
  /** One event of a stream: its data and its name (`message` when it has none). */
  readonly decodeEvent: (modelId: string) => (data: string, name: string) => EventStep
  /** What a stream that ended before its end event is said to be. */
  readonly cut: string
}

/** An adapter's calls over HTTP: `complete` and `open` as a `Provider` has them, and `send` for others. */
export interface HttpCalls {
  /** The instance's headers (configured, content type, key), for other requests (`GET /models`). */
  readonly headers: Readonly<Record<string, string>>
  readonly fail: (reason: Reason) => ProviderError
  /** Sends `body` to `url` and succeeds with a 2xx response whose body is still unread. */
  readonly send: (url: string, call: ProviderCall, body: unknown) => Effect.Effect<UpstreamResponse, ProviderError>
  /** A response's whole body, the connection cancelled if the read is abandoned. */
  readonly read: (response: UpstreamResponse) => Effect.Effect<string, ProviderError>
  readonly complete: (call: ProviderCall) => Effect.Effect<Completion, ProviderError>
  readonly open: Provider["open"]
}

/** `reason` with the secrets out of its message (`Secrets.ts`); the same reason when there were none. */
export const redactReason = (reason: Reason, secrets: ReadonlyArray<string>): Reason => {
  if (!("message" in reason)) return reason
  const message = redactSecrets(reason.message, secrets)
  if (message === reason.message) return reason
  switch (reason._tag) {
    case "UpstreamStatus":
      return changedStatus(reason, { message })
    case "UpstreamUnreachable":
      return new UpstreamUnreachable({ message })
    case "UpstreamBadResponse":
      return new UpstreamBadResponse({ message })
    case "ProviderUnavailable":
      return new ProviderUnavailable({ message })
    default:
      return reason
  }
}

/** Header names lower-cased, as the exchange sends them (a configured one is then found by its name). */
export const lowerCaseKeys = (headers: Readonly<Record<string, string>>): Record<string, string> => {
  const out: Record<string, string> = {}
  for (const [name, value] of Object.entries(headers)) out[name.toLowerCase()] = value
  return out
}

/** `Authorization: Bearer <key>`, as OpenAI's APIs and most others take a key. */
export const bearerAuth: HttpFormat["auth"] = { header: "authorization", value: (key) => `Bearer ${key}` }

export const makeHttpCalls = (
  options: HttpOptions,
  format: HttpFormat
): Effect.Effect<HttpCalls, never, UpstreamTransport> =>
  Effect.gen(function*() {
    const transport = yield* UpstreamTransport
    const timeouts = {
      firstByte: options.timeouts.firstByte,
      idle: options.timeouts.idle,
      total: options.timeouts.total
    }
    const headers = lowerCaseKeys(options.headers)
    headers["content-type"] = "application/json"
    if (options.apiKey !== undefined) headers[format.auth.header] = format.auth.value(Redacted.value(options.apiKey))

    const secrets = configuredSecrets(
      options.apiKey === undefined ? undefined : Redacted.value(options.apiKey),
      options.headers
    )
    const fail = (reason: Reason) =>
      new ProviderError({ provider: options.name, reason: redactReason(reason, secrets) })
    const fromTransportError = (error: UpstreamTransportError) => fail(reasonFromTransportError(error))

    const read = (response: UpstreamResponse) =>
      response.text.pipe(Effect.mapError(fromTransportError), Effect.onInterrupt(() => response.cancel))

    const send = Effect.fnUntraced(function*(url: string, call: ProviderCall, body: unknown) {
      const response = yield* transport.send({
        url,
        headers: format.callHeaders === undefined
          ? { ...headers, "x-request-id": call.requestId }
          : { ...headers, ...format.callHeaders(call), "x-request-id": call.requestId },
        body: JSON.stringify(body),
        timeouts
      }).pipe(Effect.mapError(fromTransportError))
      if (response.status >= 200 && response.status < 300) return response
      // an unreadable error body still leaves the status worth reporting
      const text = yield* read(response).pipe(Effect.catch(() => Effect.succeed("")))
      return yield* Effect.fail(fail(withRetryAfter(format.decodeError(response.status, text), response.headers)))
    })

    const complete = Effect.fnUntraced(function*(call: ProviderCall) {
      const response = yield* send(format.url(call, false), call, format.body(call, false))
      const completion = format.decodeWhole(yield* read(response), call.modelId)
      if (Result.isFailure(completion)) return yield* Effect.fail(fail(completion.failure))
      return completion.success
    })

    /**
     * The answer's chunks; the upstream body is released (after its end event) or aborted when `scope`
     * closes. A generator function made once per provider: one made per call would outlive it.
     */
    const open = Effect.fnUntraced(function*(call: ProviderCall, scope: Scope.Scope) {
      const response = yield* send(format.url(call, true), call, format.body(call, true))
      if ((response.headers["content-type"] ?? "").startsWith("application/json")) {
        const decoded = format.decodeWhole(yield* read(response), call.modelId)
        return yield* Effect.fail(fail(
          Result.isFailure(decoded) && decoded.failure._tag === "UpstreamStatus"
            ? decoded.failure
            : new UpstreamBadResponse({ message: "upstream answered a streaming request with JSON, not SSE" })
        ))
      }
      const { finalizer, pull } = sseChunks(response, {
        decode: format.decodeEvent(call.modelId),
        fail,
        fromTransportError,
        cut: format.cut
      })
      // the upstream body lives as long as the answer: a consumer that stops or leaves aborts it
      yield* Scope.addFinalizer(scope, finalizer)
      return pull
    })

    return { headers, fail, send, read, complete, open }
  })
