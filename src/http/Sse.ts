/**
 * Server-sent events from an Effect Stream, in the framing OpenAI clients expect: each event
 * `data: <json>\n\n`, then `data: [DONE]\n\n`. A failure after the headers went out cannot change the
 * status any more, so it becomes a last `data: {"error":{...}}` event and the stream closes without
 * `[DONE]`: never a silent normal end.
 */
import { Cause, Channel, Effect, Exit, Pull, Scope, Stream } from "effect"
import { type ChunkPull } from "../kernel/ChunkPull.ts"
import type { NonEmptyReadonlyArray } from "effect/Array"
import { HttpEffect, HttpServerResponse } from "effect/http"
import { describeError, type EdgeError, internalError } from "./ErrorResponse.ts"

const DONE = Buffer.from("data: [DONE]\n\n")
const frame = (event: unknown) => `data: ${JSON.stringify(event)}\n\n`
/** A whole chunk of events as one piece of bytes: one write to the socket, not one per event. */
const frames = (events: ReadonlyArray<unknown>): [Uint8Array] => {
  let text = ""
  for (const event of events) text += frame(event)
  // a Buffer of a few kB comes from Node's shared pool, not an ArrayBuffer of its own per write
  return [Buffer.from(text)]
}

/**
 * How a stream ended, for the request log: 200 after `[DONE]`, the error's status and code after an
 * error event, 499 `client_closed` when the client left first. Runs once, in the stream's own fiber.
 */
export type StreamEnd = (status: number, code: string | null) => Effect.Effect<void>

/**
 * The events as SSE frames, the response's one stream stage: it does the framing, the `[DONE]`, the
 * error event and the client-gone report, and closes `owned` (the request's scope) once the stream is
 * over, whichever way, after `onEnd`.
 */
const sseFrames = <E extends EdgeError>(
  events: ChunkPull<unknown, E>,
  onEnd: StreamEnd,
  owned: Scope.Closeable
): Stream.Stream<Uint8Array> =>
  Stream.fromChannel(Channel.fromTransform((_, scope) => {
    let ended = false
    const end = (status: number, code: string | null): Effect.Effect<void> => {
      if (ended) return Effect.void
      ended = true
      return onEnd(status, code)
    }
    // nothing is pulled after [DONE] or an error event
    let closed = false
    const clientGone = (exit: Exit.Exit<unknown, unknown>) => Exit.hasInterrupts(exit) ? end(499, "client_closed") : Effect.void
    const finish = (exit: Exit.Exit<unknown, unknown>) => Effect.andThen(clientGone(exit), Scope.close(owned, exit))
    const onFailure = (cause: Cause.Cause<E | Cause.Done>): Pull.Pull<NonEmptyReadonlyArray<Uint8Array>> => {
      if (Pull.isDoneCause(cause)) {
        closed = true
        return Effect.as(end(200, null), [DONE])
      }
      // a client that left needs no error event; let the interruption through
      if (Cause.hasInterruptsOnly(cause)) return Effect.failCause(cause as Cause.Cause<never>)
      closed = true
      const failure = Cause.findErrorOption(cause)
      const described = failure._tag === "Some" && !Cause.isDone(failure.value)
        ? describeError(failure.value)
        : internalError
      return Effect.as(end(described.status, described.body.error.code), [Buffer.from(frame(described.body))])
    }
    const next = Effect.matchCauseEffect(events, { onSuccess: (batch) => Effect.succeed(frames(batch)), onFailure })
    const pull: Pull.Pull<NonEmptyReadonlyArray<Uint8Array>> = Effect.suspend(() => closed ? Cause.done() : next)
    return Effect.as(Scope.addFinalizerExit(scope, finish), pull)
  }))

/**
 * The SSE response. It takes over the request's scope, so resources opened while handling the
 * request (the upstream answer) live until the last event is written or the client disconnects: what
 * `HttpEffect.scopeTransferToStream` does, but in the framing stage rather than in a stage of its own.
 */
export const sseResponse = <E extends EdgeError>(
  events: ChunkPull<unknown, E>,
  headers: Record<string, string>,
  onEnd: StreamEnd = () => Effect.void
) =>
  Effect.map(Effect.scope, (scope) => {
    // the router closes the request's scope when the handler returns, unless told it is taken over
    HttpEffect.scopeDisableClose(scope)
    return HttpServerResponse.stream(sseFrames(events, onEnd, scope as Scope.Closeable), {
      contentType: "text/event-stream",
      headers: { "cache-control": "no-cache", "x-accel-buffering": "no", ...headers }
    })
  })
