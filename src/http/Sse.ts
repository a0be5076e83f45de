/**
 * Server-sent events from a pull of frames that a dialect wrote (event names, data, its terminator). A
 * failure after the headers went out cannot change the status any more, so it becomes the dialect's
 * error frame and the stream closes: never a silent normal end.
 */
import { Cause, Channel, Effect, Exit, Pull, Scope, Stream } from "effect"
import type { NonEmptyReadonlyArray } from "effect/Array"
import { HttpEffect, HttpServerResponse } from "effect/http"
import { describeError, type EdgeError, internalProblem, type Problem } from "../core/Problem.ts"
import type { ChunkPull } from "../kernel/ChunkPull.ts"

/** A whole batch of frames as one piece of bytes: one write to the socket, not one per event. */
const bytes = (frames: ReadonlyArray<string>): [Uint8Array] => {
  let text = ""
  for (const frame of frames) text += frame
  // a Buffer of a few kB comes from Node's shared pool, not an ArrayBuffer of its own per write
  return [Buffer.from(text)]
}

/**
 * How a stream ended, for the request log: 200 after its last frame, the error's status and code after
 * an error frame, 499 `client_closed` when the client left first. Runs once, in the stream's own fiber.
 */
export type StreamEnd = (status: number, code: string | null) => Effect.Effect<void>

/**
 * The frames as the response's one stream stage: it writes them, the error frame and the client-gone
 * report, and closes `owned` (the request's scope) once the stream is over, whichever way, after `onEnd`.
 */
const sseBytes = <E extends EdgeError>(
  frames: ChunkPull<string, E>,
  errorFrame: (problem: Problem) => string,
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
    // nothing is pulled after the end or an error frame
    let closed = false
    const clientGone = (exit: Exit.Exit<unknown, unknown>) =>
      Exit.hasInterrupts(exit) ? end(499, "client_closed") : Effect.void
    const finish = (exit: Exit.Exit<unknown, unknown>) => Effect.andThen(clientGone(exit), Scope.close(owned, exit))
    const onFailure = (cause: Cause.Cause<E | Cause.Done>): Pull.Pull<NonEmptyReadonlyArray<Uint8Array>> => {
      if (Pull.isDoneCause(cause)) {
        closed = true
        return Effect.andThen(end(200, null), Cause.done())
      }
      // a client that left needs no error frame; let the interruption through
      if (Cause.hasInterruptsOnly(cause)) return Effect.failCause(cause as Cause.Cause<never>)
      closed = true
      const failure = Cause.findErrorOption(cause)
      const problem = failure._tag === "Some" && !Cause.isDone(failure.value)
        ? describeError(failure.value)
        : internalProblem
      return Effect.as(end(problem.status, problem.code), [Buffer.from(errorFrame(problem))])
    }
    const next = Effect.matchCauseEffect(frames, { onSuccess: (batch) => Effect.succeed(bytes(batch)), onFailure })
    const pull: Pull.Pull<NonEmptyReadonlyArray<Uint8Array>> = Effect.suspend(() => closed ? Cause.done() : next)
    return Effect.as(Scope.addFinalizerExit(scope, finish), pull)
  }))

/**
 * The SSE response. It takes over the request's scope, so resources opened while handling the
 * request (the upstream answer) live until the last frame is written or the client disconnects: what
 * `HttpEffect.scopeTransferToStream` does, but in the writing stage rather than in a stage of its own.
 */
export const sseResponse = <E extends EdgeError>(
  frames: ChunkPull<string, E>,
  errorFrame: (problem: Problem) => string,
  headers: Record<string, string>,
  onEnd: StreamEnd = () => Effect.void
) =>
  Effect.map(Effect.scope, (scope) => {
    // the router closes the request's scope when the handler returns, unless told it is taken over
    HttpEffect.scopeDisableClose(scope)
    return HttpServerResponse.stream(sseBytes(frames, errorFrame, onEnd, scope as Scope.Closeable), {
      contentType: "text/event-stream",
      headers: { "cache-control": "no-cache", "x-accel-buffering": "no", ...headers }
    })
  })
