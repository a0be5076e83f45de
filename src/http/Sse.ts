/**
 * Server-sent events from an Effect Stream, in the framing OpenAI clients expect: each event
 * `data: <json>\n\n`, then `data: [DONE]\n\n`. A failure after the headers went out cannot change the
 * status any more, so it becomes a last `data: {"error":{...}}` event and the stream closes without
 * `[DONE]`: never a silent normal end.
 */
import { Cause, Stream } from "effect"
import { HttpEffect, HttpServerResponse } from "effect/http"
import { describeError, type EdgeError, internalError } from "./ErrorResponse.ts"

const DONE = "data: [DONE]\n\n"
const frame = (event: unknown) => `data: ${JSON.stringify(event)}\n\n`

export const sseFrames = <E extends EdgeError>(events: Stream.Stream<unknown, E>): Stream.Stream<Uint8Array> =>
  events.pipe(
    Stream.map(frame),
    Stream.concat(Stream.succeed(DONE)),
    Stream.catchCause((cause) => {
      // a client that left needs no error event; let the interruption through
      if (Cause.hasInterruptsOnly(cause)) return Stream.failCause(cause as Cause.Cause<never>)
      const failure = Cause.findErrorOption(cause)
      const described = failure._tag === "Some" ? describeError(failure.value) : internalError
      return Stream.succeed(frame(described.body))
    }),
    Stream.encodeText
  )

/**
 * The SSE response. It takes over the request's scope, so resources opened while handling the
 * request (the upstream stream) live until the last event is written or the client disconnects.
 */
export const sseResponse = <E extends EdgeError>(
  events: Stream.Stream<unknown, E>,
  headers: Record<string, string>
) =>
  HttpEffect.scopeTransferToStream(
    HttpServerResponse.stream(sseFrames(events), {
      contentType: "text/event-stream",
      headers: { "cache-control": "no-cache", "x-accel-buffering": "no", ...headers }
    })
  )
