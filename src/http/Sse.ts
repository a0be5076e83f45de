/**
 * Server-sent events from an Effect Stream, in the framing OpenAI clients expect: each event
 * `data: <json>\n\n`, then `data: [DONE]\n\n`. A failure after the headers went out cannot change the
 * status any more, so it becomes a last `data: {"error":{...}}` event and the stream closes without
 * `[DONE]`: never a silent normal end.
 */
import { Cause, Exit, Stream } from "effect"
import { HttpEffect, HttpServerResponse } from "effect/http"
import { describeError, type EdgeError, internalError } from "./ErrorResponse.ts"

const encoder = new TextEncoder()
const DONE = encoder.encode("data: [DONE]\n\n")
const frame = (event: unknown) => `data: ${JSON.stringify(event)}\n\n`
/** A whole chunk of events as one piece of bytes: one write to the socket, not one per event. */
const frames = (events: ReadonlyArray<unknown>): [Uint8Array] => {
  let text = ""
  for (const event of events) text += frame(event)
  return [encoder.encode(text)]
}

/**
 * How a stream ended, for the request log: 200 after `[DONE]`, the error's status and code after an
 * error event, 499 `client_closed` when the client left first.
 */
export type StreamEnd = (status: number, code: string | null) => void

export const sseFrames = <E extends EdgeError>(
  events: Stream.Stream<unknown, E>,
  onEnd: StreamEnd = () => {}
): Stream.Stream<Uint8Array> =>
  Stream.suspend(() => {
    let ended = false
    const end = (status: number, code: string | null) => {
      if (ended) return
      ended = true
      onEnd(status, code)
    }
    return Stream.mapArray(events, frames).pipe(
      Stream.concat(Stream.sync(() => {
        end(200, null)
        return DONE
      })),
      Stream.catchCause((cause) => {
        // a client that left needs no error event; let the interruption through
        if (Cause.hasInterruptsOnly(cause)) return Stream.failCause(cause as Cause.Cause<never>)
        const failure = Cause.findErrorOption(cause)
        const described = failure._tag === "Some" ? describeError(failure.value) : internalError
        end(described.status, described.body.error.code)
        return Stream.succeed(encoder.encode(frame(described.body)))
      }),
      Stream.onExit((exit) => {
        if (Exit.hasInterrupts(exit)) end(499, "client_closed")
        return Exit.void
      })
    )
  })

/**
 * The SSE response. It takes over the request's scope, so resources opened while handling the
 * request (the upstream stream) live until the last event is written or the client disconnects.
 */
export const sseResponse = <E extends EdgeError>(
  events: Stream.Stream<unknown, E>,
  headers: Record<string, string>,
  onEnd?: StreamEnd
) =>
  HttpEffect.scopeTransferToStream(
    HttpServerResponse.stream(sseFrames(events, onEnd), {
      contentType: "text/event-stream",
      headers: { "cache-control": "no-cache", "x-accel-buffering": "no", ...headers }
    })
  )
