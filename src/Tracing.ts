/**
 * Spans for the request hot path. `Effect.fn(name)` captures a stack trace for every call (an `Error`
 * each time), which costs more than the rest of a small method; these spans skip it. And with tracing
 * off, a native span would still be built, timed and put in the context for nobody to read, several
 * allocations per hot call: these add one only when a real tracer records it. Everything off the hot
 * path keeps `Effect.fn` and its stack traces.
 *
 * And `IncomingTraceHeaders`: the caller's trace context, which the server's edge sets
 * (`observability/TraceHeaders.ts`) and the upstream transport forwards while no spans are recorded.
 */
import { Context, Effect, Tracer } from "effect"
import type { Fiber } from "effect"

/** Whether spans go anywhere: a tracer other than Effect's native one is installed and enabled. */
export const isTracing = (fiber: Fiber.Fiber<unknown, unknown>): boolean =>
  fiber.cache.tracerEnabled && fiber.getRef(Tracer.Tracer) !== Tracer.nativeTracer

/** `Effect.fnUntraced(body, hotSpan("Area.method"))`: a named span per call when traced, no stack capture. */
export const hotSpan = (name: string, options: Tracer.SpanOptionsNoTrace = {}) => {
  const spanOptions = { ...options, captureStackTrace: false }
  return <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    Effect.withFiber((fiber) => isTracing(fiber) ? Effect.withSpan(self, name, spanOptions) : self)
}

/** The caller's trace context headers, for an upstream request made while no spans are recorded. */
export const IncomingTraceHeaders = Context.Reference<Readonly<Record<string, string>> | undefined>(
  "svc-gateway/IncomingTraceHeaders",
  { defaultValue: () => undefined }
)
