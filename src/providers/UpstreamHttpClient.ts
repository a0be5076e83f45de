/**
 * Any Effect `HttpClient` behind the `UpstreamTransport` interface: for tests (a fake client answering
 * web `Response`s) and for a deployment that wants the client's middleware. Slower than
 * `UpstreamTransport.layerUndici`, and its timeouts run on the Effect clock, so `TestClock` drives them.
 */
import { Cause, Clock, Duration, Effect, Exit, Layer, Scope, Stream } from "effect"
import { HttpClient, HttpClientError, HttpClientRequest } from "effect/http"
import type { HttpClientResponse } from "effect/http"
import type { TimeoutPhase } from "./ProviderError.ts"
import {
  transportError,
  type UpstreamRequest,
  type UpstreamResponse,
  UpstreamTransport,
  UpstreamTransportError
} from "./UpstreamTransport.ts"

const fromClientError = (error: HttpClientError.HttpClientError): UpstreamTransportError => {
  const reason = error.reason
  switch (reason._tag) {
    case "TransportError":
    case "DecodeError": {
      // reading a body fails with DecodeError when the connection breaks part-way: the connection's fault
      const mapped = transportError(reason.cause)
      return mapped.kind === "timeout"
        ? mapped
        : new UpstreamTransportError({ kind: "unreachable", message: reason.message })
    }
    case "EmptyBodyError":
      return new UpstreamTransportError({ kind: "empty_body", message: "upstream returned an empty body" })
    case "StatusCodeError":
      return new UpstreamTransportError({ kind: "unreachable", message: reason.message })
    case "InvalidUrlError":
    case "EncodeError":
      return new UpstreamTransportError({ kind: "invalid_request", message: reason.message })
  }
}

const timedOut = (phase: TimeoutPhase) =>
  Effect.fail(new UpstreamTransportError({ kind: "timeout", message: `${phase} timeout`, phase }))

/** `effect` within `ms`, failing with `phase` after; no timer at all when `ms` is infinite. */
const within = <A>(effect: Effect.Effect<A, UpstreamTransportError>, ms: number, phase: TimeoutPhase) =>
  ms === Infinity
    ? effect
    : Effect.timeoutOrElse(effect, { duration: Duration.millis(Math.max(0, ms)), orElse: () => timedOut(phase) })

export const send = (client: HttpClient.HttpClient) => (request: UpstreamRequest) =>
  Effect.gen(function*() {
    const clock = yield* Clock.Clock
    const deadline = clock.currentTimeMillisUnsafe() + Duration.toMillis(request.timeouts.total)
    const { "content-type": contentType, ...headers } = request.headers
    const sent = client.execute(
      request.method === "GET"
        ? HttpClientRequest.get(request.url).pipe(HttpClientRequest.setHeaders(headers))
        : HttpClientRequest.post(request.url).pipe(
          HttpClientRequest.setHeaders(headers),
          HttpClientRequest.bodyText(request.body, contentType ?? "application/json")
        )
    ).pipe(Effect.mapError(fromClientError))
    // whichever of first byte and total runs out first
    const firstByte = request.timeouts.firstByte === undefined
      ? Infinity
      : Duration.toMillis(request.timeouts.firstByte)
    const total = deadline - clock.currentTimeMillisUnsafe()
    const response: HttpClientResponse.HttpClientResponse = yield* firstByte < total
      ? within(sent, firstByte, "first_byte")
      : within(sent, total, "total")

    const scope = yield* Scope.make()
    const pull = yield* Stream.toPull(Stream.mapError(response.stream, fromClientError)).pipe(Scope.provide(scope))
    const idle = request.timeouts.idle === undefined ? Infinity : Duration.toMillis(request.timeouts.idle)
    let pending: Array<Uint8Array> = []
    let ended = false
    const read: Effect.Effect<Uint8Array | undefined, UpstreamTransportError> = Effect.suspend(() => {
      const next = pending.shift()
      if (next !== undefined) return Effect.succeed(next)
      if (ended) return Effect.succeed(undefined)
      const left = deadline - clock.currentTimeMillisUnsafe()
      if (left <= 0) return timedOut("total")
      const piece = Effect.matchEffect(pull, {
        onFailure: (error) => {
          if (!Cause.isDone(error)) return Effect.fail(error)
          ended = true
          return Effect.succeed(undefined)
        },
        onSuccess: (pieces) => {
          pending = pieces.slice(1)
          return Effect.succeed(pieces[0])
        }
      })
      return idle < left ? within(piece, idle, "idle") : within(piece, left, "total")
    })
    const text = Effect.suspend(() => {
      const decoder = new TextDecoder()
      let out = ""
      const loop: Effect.Effect<string, UpstreamTransportError> = Effect.flatMap(read, (piece) => {
        if (piece === undefined) return Effect.succeed(out + decoder.decode())
        out += decoder.decode(piece, { stream: true })
        return loop
      })
      // a body read to its end is done with: its scope closes with it
      return Effect.ensuring(loop, Scope.close(scope, Exit.void))
    })
    return {
      status: response.status,
      headers: response.headers,
      read,
      text,
      cancel: Scope.close(scope, Exit.void),
      release: Scope.close(scope, Exit.void)
    } satisfies UpstreamResponse
  })

/** `UpstreamTransport` over the `HttpClient` in context. */
export const layer: Layer.Layer<UpstreamTransport, never, HttpClient.HttpClient> = Layer.effect(
  UpstreamTransport,
  Effect.map(Effect.service(HttpClient.HttpClient), (client) => UpstreamTransport.of({ send: send(client) }))
)
