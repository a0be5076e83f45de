/**
 * Spans for the request hot path. `Effect.fn(name)` captures a stack trace for every call (an `Error`
 * each time), which costs more than the rest of a small method; these spans skip it. Everything off the
 * hot path keeps `Effect.fn` and its stack traces.
 */
import { Effect } from "effect"
import type { Tracer } from "effect"

/** `Effect.fnUntraced(body, hotSpan("Area.method"))`: a named span per call, without a stack capture. */
export const hotSpan = (name: string, options: Tracer.SpanOptionsNoTrace = {}) => <A, E, R>(
  self: Effect.Effect<A, E, R>
): Effect.Effect<A, E, R> => Effect.withSpan(self, name, { ...options, captureStackTrace: false })
