/**
 * W3C trace context at the gateway's edges. Most of it is Effect's own, and needs no code here:
 * - in: the HTTP server's span (`HttpMiddleware.tracer`, on whenever a real tracer is installed) takes
 *   its parent from the request's `traceparent` (then `b3`, `x-b3-*`), so a request continues its
 *   caller's trace and keeps the caller's sampled flag;
 * - out: the upstream transport writes `traceparent` (and `b3`) for its client span on every request.
 *
 * What is here: `TraceIdHeader`, a router middleware that answers the trace id in `x-trace-id`, so a
 * client can quote it, when a real tracer is installed (only sampled requests carry it). With tracing
 * off (no spans at all, see `TracingLive`) it instead hands the caller's `traceparent` and `tracestate`
 * to the upstream transport, which forwards them unchanged: the gateway is then a hop that takes no part
 * in the trace, as W3C trace context asks of one.
 */
import { Context, Effect, Layer, Tracer } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { IncomingTraceHeaders, isTracing } from "../Tracing.ts"

export const TRACE_ID_HEADER = "x-trace-id"

const forwardTraceContext = <E, R>(
  handler: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
): Effect.Effect<HttpServerResponse.HttpServerResponse, E, R> =>
  Effect.withFiber((fiber) => {
    // the router runs every middleware inside a request
    const { headers } = Context.getUnsafe(
      fiber.context as Context.Context<HttpServerRequest.HttpServerRequest>,
      HttpServerRequest.HttpServerRequest
    )
    const traceparent = headers["traceparent"]
    if (traceparent === undefined) return handler
    const tracestate = headers["tracestate"]
    return Effect.provideService(
      handler,
      IncomingTraceHeaders,
      tracestate === undefined ? { traceparent } : { traceparent, tracestate }
    )
  })

/** Whether spans go anywhere: a tracer other than Effect's native one is installed and enabled. */
export const tracingActive: Effect.Effect<boolean> = Effect.withFiber((fiber) => Effect.succeed(isTracing(fiber)))

/** The current span's trace id when it is sampled by a real tracer, else undefined. */
export const currentTraceId: Effect.Effect<string | undefined> = Effect.withFiber((fiber) => {
  const span = Context.getOrUndefined(fiber.context, Tracer.ParentSpan)
  const active = fiber.cache.tracerEnabled && fiber.getRef(Tracer.Tracer) !== Tracer.nativeTracer
  return Effect.succeed(active && span !== undefined && span.sampled ? span.traceId : undefined)
})

const addTraceId = <E, R>(
  handler: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
): Effect.Effect<HttpServerResponse.HttpServerResponse, E, R> =>
  Effect.withFiber((fiber) => {
    // the server span (the global middleware runs inside it, before any route's own spans)
    const span = Context.getOrUndefined(fiber.context, Tracer.ParentSpan)
    if (span === undefined || !span.sampled) return handler
    const traceId = span.traceId
    return Effect.map(handler, (response) => HttpServerResponse.setHeader(response, TRACE_ID_HEADER, traceId))
  })

/**
 * Adds `x-trace-id: <trace id>` to every response of the router when tracing is on. Merge it with the
 * routes given to `HttpRouter.serve`; it reads the tracer when the routes are built, so the tracing
 * layer must already be in the context then.
 */
export const TraceIdHeader: Layer.Layer<never, never, HttpRouter.HttpRouter> = HttpRouter.middleware(
  Effect.map(tracingActive, (active) => active ? addTraceId : forwardTraceContext),
  { global: true }
)
