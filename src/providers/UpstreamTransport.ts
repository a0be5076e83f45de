/**
 * The HTTP exchange with an upstream, behind the gateway's own small interface: one POST, its status and
 * headers, then the body piece by piece. `layerUndici` (what the app runs) drives undici's dispatcher
 * directly: Effect's HttpClient wraps every request and every piece of body in several fibers, streams
 * and abort signals, which cost more CPU per streamed answer than the rest of the gateway together.
 * `UpstreamHttpClient.ts` puts any Effect `HttpClient` behind the same interface (tests fake one).
 *
 * Timeouts are the transport's, so each can use the cheapest timer it has (no fiber per request):
 * connect, first byte (until the response headers), idle (longest silence between two pieces of body)
 * and total (the whole exchange, through the last piece of body read). Each failure says which ran out.
 */
import { Context, Duration, Effect, Layer, Schema } from "effect"
import type { Tracer } from "effect"
import { HttpTraceContext } from "effect/http"
import type { Dispatcher } from "undici"
import { IncomingTraceHeaders, isTracing } from "../Tracing.ts"
import { TimeoutPhase } from "./ProviderError.ts"
// undici's Agent alone: the package's index also loads fetch, WebSocket, the cache and mocks, and Node's
// http2, web streams and worker threads with them (12 MiB more resident in a bare process, measured)
import Agent from "undici/lib/dispatcher/agent.js"

/** Why an exchange failed: the connection (`unreachable`), a timeout, or a request that cannot be sent. */
export class UpstreamTransportError extends Schema.TaggedError<UpstreamTransportError>()("UpstreamTransportError", {
  kind: Schema.Literals(["unreachable", "timeout", "invalid_request", "empty_body"]),
  message: Schema.String,
  /** Set when `kind` is `timeout`. */
  phase: Schema.optional(TimeoutPhase)
}) {}

export interface UpstreamRequest {
  /** `POST` unless told (`GET` for a provider's model list, whose `body` is then ignored). */
  readonly method?: "GET" | "POST"
  /** The whole URL, e.g. `https://api.openai.com/v1/chat/completions`. */
  readonly url: string
  /** Lower-case names. */
  readonly headers: Readonly<Record<string, string>>
  /** JSON text. */
  readonly body: string
  readonly timeouts: {
    readonly firstByte: Duration.Duration | undefined
    readonly idle: Duration.Duration | undefined
    readonly total: Duration.Duration
  }
}

export interface UpstreamResponse {
  readonly status: number
  /** Lower-case names; repeated headers joined with `, `. */
  readonly headers: Readonly<Record<string, string>>
  /** The next piece of body, everything that arrived since the last read; `undefined` once it ended. */
  readonly read: Effect.Effect<Uint8Array | undefined, UpstreamTransportError>
  /** The rest of the body as text. */
  readonly text: Effect.Effect<string, UpstreamTransportError>
  /** Abandons the rest of the body (a body still open is aborted); harmless after the end or twice. */
  readonly cancel: Effect.Effect<void>
  /**
   * Done with the body, which is complete as far as the caller knows (`[DONE]` came): the rest is
   * discarded, so the connection goes back to the pool if the body ends soon; else it is aborted.
   */
  readonly release: Effect.Effect<void>
}

export class UpstreamTransport extends Context.Service<UpstreamTransport, {
  /** Sends the request (a POST unless told); succeeds with any status once the response headers arrived. Interrupting it aborts. */
  readonly send: (request: UpstreamRequest) => Effect.Effect<UpstreamResponse, UpstreamTransportError>
}>()("svc-gateway/UpstreamTransport") {
  /** Pooled keep-alive connections over undici's `Agent`, closed with the layer. */
  static readonly layerUndici = (options: { readonly connectTimeout: Duration.Duration }) =>
    Layer.effect(
      UpstreamTransport,
      Effect.map(
        Effect.acquireRelease(
          Effect.sync(() =>
            new Agent({ connect: { timeout: Duration.toMillis(options.connectTimeout) }, keepAliveTimeout: 30_000 })
          ),
          (agent) => Effect.promise(() => agent.destroy())
        ),
        (dispatcher) => UpstreamTransport.of({ send: sendWith(dispatcher) })
      )
    )
}

type Controller = Parameters<NonNullable<Parameters<Dispatcher["dispatch"]>[1]["onRequestStart"]>>[0]
type Resume<A> = (effect: Effect.Effect<A, UpstreamTransportError>) => void

/** undici's own timeout errors, by code. */
const phaseOfCode = (code: unknown): TimeoutPhase | undefined =>
  code === "UND_ERR_HEADERS_TIMEOUT"
    ? "first_byte"
    : code === "UND_ERR_BODY_TIMEOUT"
    ? "idle"
    : code === "UND_ERR_CONNECT_TIMEOUT"
    ? "connect"
    : undefined

/** The `reason` the exchange was aborted with when one of this module's own timers ran out. */
class PhaseTimeout extends Error {
  readonly phase: TimeoutPhase
  constructor(phase: TimeoutPhase) {
    super(`${phase} timeout`)
    this.phase = phase
  }
}

export const transportError = (cause: unknown): UpstreamTransportError => {
  if (cause instanceof PhaseTimeout) {
    return new UpstreamTransportError({ kind: "timeout", message: cause.message, phase: cause.phase })
  }
  const code = typeof cause === "object" && cause !== null && "code" in cause ? cause.code : undefined
  const phase = phaseOfCode(code)
  const message = cause instanceof Error ? cause.message : String(cause)
  if (phase !== undefined) return new UpstreamTransportError({ kind: "timeout", message, phase })
  return new UpstreamTransportError({
    kind: code === "UND_ERR_INVALID_ARG" ? "invalid_request" : "unreachable",
    message
  })
}

const joinHeaders = (headers: Record<string, string | Array<string> | undefined>): Record<string, string> => {
  const out: Record<string, string> = {}
  for (const name in headers) {
    const value = headers[name]
    if (value !== undefined) out[name] = typeof value === "string" ? value : value.join(", ")
  }
  return out
}

/**
 * How long a released body may take to end. An SSE body usually ends in the next packet after
 * `[DONE]`; aborting it instead closes the connection, and a new one per request costs a connect.
 */
const RELEASE_GRACE_MS = 1_000

/** Above this many unread bytes undici stops reading the socket until the consumer catches up. */
const HIGH_WATER = 64 * 1024

/** One exchange: the undici handler, the body buffer, and the reads waiting on it. */
class Exchange {
  controller: Controller | undefined
  status = 0
  headers: Record<string, string> = {}
  private pieces: Array<Uint8Array> = []
  private buffered = 0
  private ended = false
  private failure: UpstreamTransportError | undefined
  private aborted = false
  private released = false
  /** The `send` waiting for the headers, then a `read` waiting for body. */
  private waiter: Resume<void> | undefined
  private reader: Resume<Uint8Array | undefined> | undefined
  private timer: ReturnType<typeof setTimeout> | undefined

  /** Until the headers: the first-byte limit when it comes before the total one. */
  private firstByteTimer: ReturnType<typeof setTimeout> | undefined

  /**
   * After the headers: the idle limit, checked lazily. Each piece of body only notes the time; when the
   * timer runs out it is armed again for what is left of the limit since the last piece, so a steady
   * body costs one timer per idle period rather than a timer operation per piece. Not undici's body
   * timeout: it makes a timer object per request that stays in undici's list until its next sweep (every
   * half second), long enough to be promoted to the old generation; with it a whole answer promoted
   * nearly twice as much, and streamed answers mixed with whole ones ten times as much (see
   * docs/performance-history.md).
   */
  private idleTimer: ReturnType<typeof setTimeout> | undefined
  /** Infinity when there is none, or when the total limit always comes first. */
  private readonly idleMs: number
  private lastPieceAt = 0

  constructor(onHeaders: Resume<void>, firstByteMs: number | undefined, idleMs: number | undefined, totalMs: number) {
    this.waiter = onHeaders
    this.idleMs = idleMs !== undefined && idleMs < totalMs ? idleMs : Infinity
    // a forgotten exchange must not keep the process alive
    this.timer = setTimeout(() => this.abort(new PhaseTimeout("total")), totalMs).unref()
    // Node's timers, not undici's: undici rounds its timeouts to about a second
    if (firstByteMs !== undefined && firstByteMs < totalMs) {
      this.firstByteTimer = setTimeout(() => this.abort(new PhaseTimeout("first_byte")), firstByteMs).unref()
    }
  }

  // undici's handler: arrow properties, since undici calls them unbound
  readonly handler = {
    onRequestStart: (controller: Controller) => {
      this.controller = controller
      if (this.aborted) controller.abort(new Error("cancelled"))
    },
    onResponseStart: (_: Controller, status: number, headers: Record<string, string | Array<string> | undefined>) => {
      // 1xx interim responses are not the answer
      if (status < 200) return
      if (this.firstByteTimer !== undefined) clearTimeout(this.firstByteTimer)
      this.firstByteTimer = undefined
      if (this.idleMs !== Infinity) {
        this.lastPieceAt = performance.now()
        this.idleTimer = setTimeout(this.idleCheck, this.idleMs).unref()
      }
      this.status = status
      this.headers = joinHeaders(headers)
      const waiter = this.waiter
      this.waiter = undefined
      waiter?.(Effect.void)
    },
    onResponseData: (controller: Controller, chunk: Uint8Array) => {
      if (this.idleTimer !== undefined) this.lastPieceAt = performance.now()
      if (this.released) return
      this.pieces.push(chunk)
      this.buffered += chunk.byteLength
      if (this.buffered > HIGH_WATER) controller.pause()
      this.wake()
    },
    onResponseEnd: () => {
      this.ended = true
      this.clearTimer()
      this.wake()
    },
    onResponseError: (_: Controller | null, error: Error) => {
      this.clearTimer()
      this.failure ??= transportError(error)
      const waiter = this.waiter
      this.waiter = undefined
      waiter?.(Effect.fail(this.failure))
      this.wake()
    }
  }

  private readonly idleCheck = () => {
    const left = this.lastPieceAt + this.idleMs - performance.now()
    if (left <= 0) return this.abort(new PhaseTimeout("idle"))
    this.idleTimer = setTimeout(this.idleCheck, left).unref()
  }

  private clearTimer() {
    if (this.timer !== undefined) clearTimeout(this.timer)
    if (this.firstByteTimer !== undefined) clearTimeout(this.firstByteTimer)
    if (this.idleTimer !== undefined) clearTimeout(this.idleTimer)
    this.timer = undefined
    this.firstByteTimer = undefined
    this.idleTimer = undefined
  }

  abort(reason: Error) {
    if (this.ended || this.failure !== undefined || this.aborted) return
    this.aborted = true
    this.clearTimer()
    this.controller?.abort(reason)
  }

  private wakeQueued = false

  /**
   * Resumes a waiting read once the current batch of socket data is parsed, not on its first piece:
   * undici hands over each HTTP chunk separately (an SSE upstream writes one per event), and a read
   * resumed at once would push every event through the whole response pipeline on its own.
   */
  private wake() {
    if (this.reader === undefined || this.wakeQueued) return
    this.wakeQueued = true
    queueMicrotask(this.wakeNow)
  }

  private readonly wakeNow = () => {
    this.wakeQueued = false
    const reader = this.reader
    if (reader === undefined) return
    const next = this.next()
    if (next === undefined) return
    this.reader = undefined
    reader(next)
  }

  /** What a read answers now: buffered bytes first, then the end or the failure; undefined: wait. */
  private next(): Effect.Effect<Uint8Array | undefined, UpstreamTransportError> | undefined {
    if (this.pieces.length > 0) {
      const pieces = this.pieces
      const piece = pieces.length === 1 ? pieces[0]! : Buffer.concat(pieces)
      this.pieces = []
      this.buffered = 0
      if (this.controller?.paused === true) this.controller.resume()
      return Effect.succeed(piece)
    }
    if (this.failure !== undefined) return Effect.fail(this.failure)
    if (this.ended) return Effect.succeed(undefined)
    return undefined
  }

  readonly read: Effect.Effect<Uint8Array | undefined, UpstreamTransportError> = Effect.suspend(() =>
    this.next() ?? Effect.callback<Uint8Array | undefined, UpstreamTransportError>((resume) => {
      this.reader = resume
      return Effect.sync(() => {
        this.reader = undefined
      })
    })
  )

  readonly text: Effect.Effect<string, UpstreamTransportError> = Effect.suspend(() => {
    const decoder = new TextDecoder()
    let text = ""
    const loop: Effect.Effect<string, UpstreamTransportError> = Effect.flatMap(this.read, (piece) => {
      if (piece === undefined) return Effect.succeed(text + decoder.decode())
      text += decoder.decode(piece, { stream: true })
      return loop
    })
    return loop
  })

  readonly cancel: Effect.Effect<void> = Effect.sync(() => this.abort(new Error("cancelled")))

  readonly release: Effect.Effect<void> = Effect.sync(() => {
    if (this.ended || this.failure !== undefined || this.aborted || this.released) return
    this.released = true
    this.pieces = []
    this.buffered = 0
    this.clearTimer()
    this.timer = setTimeout(() => this.abort(new Error("released body did not end")), RELEASE_GRACE_MS)
    this.timer.unref()
    if (this.controller?.paused === true) this.controller.resume()
  })
}

/** Parsed once per distinct URL: there are only as many as configured providers. */
const targets = new Map<string, { readonly origin: string; readonly path: string }>()
const targetOf = (url: string) => {
  let target = targets.get(url)
  if (target === undefined) {
    const parsed = new URL(url)
    target = { origin: parsed.origin, path: parsed.pathname + parsed.search }
    targets.set(url, target)
  }
  return target
}

const sendWith =
  (dispatcher: Dispatcher) => (request: UpstreamRequest): Effect.Effect<UpstreamResponse, UpstreamTransportError> =>
    Effect.suspend(() => {
      let target: { readonly origin: string; readonly path: string }
      try {
        target = targetOf(request.url)
      } catch (cause) {
        return Effect.fail(
          new UpstreamTransportError({ kind: "invalid_request", message: `invalid URL: ${String(cause)}` })
        )
      }
      const exchange = (trace: Readonly<Record<string, string>> | undefined, span: Tracer.Span | undefined) =>
        Effect.callback<UpstreamResponse, UpstreamTransportError>((resume) => {
          const exchange: Exchange = new Exchange(
            (headers) =>
              resume(Effect.map(headers, (): UpstreamResponse => {
                span?.attribute("http.response.status_code", exchange.status)
                const { cancel, read, release, status, text } = exchange
                return { status, headers: exchange.headers, read, text, cancel, release }
              })),
            request.timeouts.firstByte === undefined ? undefined : Duration.toMillis(request.timeouts.firstByte),
            request.timeouts.idle === undefined ? undefined : Duration.toMillis(request.timeouts.idle),
            Duration.toMillis(request.timeouts.total)
          )
          dispatcher.dispatch({
            origin: target.origin,
            path: target.path,
            method: request.method ?? "POST",
            headers: trace === undefined ? request.headers : { ...request.headers, ...trace },
            body: request.method === "GET" ? null : request.body,
            // every timeout is this exchange's own (undici rounds its own to about a second)
            headersTimeout: 0,
            bodyTimeout: 0
          }, exchange.handler)
          // interrupted before the headers: abort the request
          return exchange.cancel
        })
      return Effect.withFiber((fiber) => {
        // not traced: the caller's own trace context, if it sent one, goes on unchanged
        if (!isTracing(fiber)) return exchange(fiber.getRef(IncomingTraceHeaders), undefined)
        // a client span around the exchange, whose context the upstream receives (as Effect's HttpClient does)
        const method = request.method ?? "POST"
        return Effect.useSpan(`http.client ${method}`, { kind: "client" }, (span) => {
          span.attribute("http.request.method", method)
          span.attribute("url.full", request.url)
          return exchange(HttpTraceContext.toHeaders(span), span)
        })
      })
    })
