/**
 * The chunks of an upstream's SSE body, one pull per piece of body (not per event): text, SSE
 * (`SseParser`, Effect's parser made fast), then each event's data through the adapter's `decode`, in
 * plain code. A chain of stream operators per event cost most of a stream's CPU. Every adapter that
 * streams SSE reads through this; what differs is `decode`: what an event means in its format, and
 * which event ends the answer.
 */
import { Cause, Effect } from "effect"
import type { NonEmptyReadonlyArray } from "effect/Array"
import type { Sse } from "effect/encoding"
import type { CompletionChunk } from "../kernel/Canonical.ts"
import { type ProviderError, UpstreamUnreachable } from "./ProviderError.ts"
import { makeSseParser } from "./SseParser.ts"
import { reasonFromSseError } from "./UpstreamReasons.ts"
import type { UpstreamResponse, UpstreamTransportError } from "./UpstreamTransport.ts"

/**
 * What one event's data gives: a chunk, nothing (a ping), the answer's end, its last chunk (a format
 * whose final event carries the usage and then ends, such as the Responses API's `response.completed`),
 * or a failure.
 */
export type EventStep =
  | { readonly _tag: "Chunk"; readonly chunk: CompletionChunk }
  | { readonly _tag: "Last"; readonly chunk: CompletionChunk }
  | { readonly _tag: "Skip" }
  | { readonly _tag: "End" }
  | { readonly _tag: "Fail"; readonly reason: ProviderError["reason"] }

export const skipEvent: EventStep = { _tag: "Skip" }
export const endEvent: EventStep = { _tag: "End" }

/**
 * The pull of `response`'s chunks and the finalizer that ends the body: released once the answer's
 * end came (the connection goes back to the pool), aborted otherwise. A body that ends before its end
 * event was cut off, said as `cut`.
 */
export const sseChunks = (
  response: UpstreamResponse,
  how: {
    /** An event's data and its name (`message` when the event has none), in plain code. */
    readonly decode: (data: string, name: string) => EventStep
    readonly fail: (reason: ProviderError["reason"]) => ProviderError
    readonly fromTransportError: (error: UpstreamTransportError) => ProviderError
    /** What a body that ended before its end event is said to be. */
    readonly cut: string
  }
) => {
  const { cut, decode, fail, fromTransportError } = how
  let done = false
  // a failure met after some chunks of the same piece of body: those chunks go out first
  let failure: ProviderError | undefined
  const text = new TextDecoder()
  let events: Array<Sse.AnyEvent> = []
  const parser = makeSseParser((event) => void events.push(event))
  const decodeBytes = (bytes: Uint8Array): Array<CompletionChunk> => {
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
      const step = decode(event.data, event.event)
      if (step._tag === "Chunk") out.push(step.chunk)
      else if (step._tag === "Last") {
        out.push(step.chunk)
        done = true
        break
      } else if (step._tag === "End") {
        done = true
        break
      } else if (step._tag === "Fail") {
        failure = fail(step.reason)
        break
      }
    }
    return out
  }
  const read = Effect.mapError(response.read, fromTransportError)
  // after the end the rest of the body is only its close: let it arrive, so the connection is reused
  const finalizer = Effect.suspend(() => done ? response.release : response.cancel)
  // stops reading at the end, even if the upstream keeps the body open after it
  const pull: Effect.Effect<NonEmptyReadonlyArray<CompletionChunk>, ProviderError | Cause.Done> = Effect.suspend(() =>
    failure !== undefined
      ? Effect.fail(failure)
      : done
      ? Cause.done()
      : Effect.flatMap(read, (bytes) => {
        if (bytes === undefined) return Effect.fail(fail(new UpstreamUnreachable({ message: cut })))
        const out = decodeBytes(bytes)
        return out.length > 0 ? Effect.succeed(out as unknown as NonEmptyReadonlyArray<CompletionChunk>) : pull
      })
  )
  return { pull, finalizer }
}
