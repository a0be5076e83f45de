/**
 * Stream stages that work on a stream's chunks (the arrays a pull yields), for the streamed-answer hot
 * path. Every operator in a chain costs a channel, its pulls and often a `suspend` per request, which
 * for a short streamed answer outweighs the work on its few chunks; one stage that maps and filters a
 * whole chunk replaces a `map` plus a `filter`, and a chunk stays one write to the client.
 */
import { Channel, Effect, Pull, Stream } from "effect"
import type { Scope } from "effect"
import type { NonEmptyReadonlyArray } from "effect/Array"

/**
 * Maps each chunk to any number of elements; a chunk that maps to none pulls the next one. `f` runs once
 * per chunk, in order, so it may keep state.
 */
export const mapChunks = <A, B, E, R>(
  self: Stream.Stream<A, E, R>,
  f: (chunk: NonEmptyReadonlyArray<A>) => ReadonlyArray<B>
): Stream.Stream<B, E, R> =>
  Stream.fromChannel(Channel.transformPull(Stream.toChannel(self), (pull) =>
    Effect.succeed(Effect.flatMap(pull, function loop(chunk): Pull.Pull<NonEmptyReadonlyArray<B>, E> {
      const out = f(chunk)
      return out.length > 0 ? Effect.succeed(out as NonEmptyReadonlyArray<B>) : Effect.flatMap(pull, loop)
    }))))

/**
 * The first chunk of a stream, pulled now, and the whole stream (that chunk first); `None` for a stream
 * that ended empty. Like `Stream.peel` with `Sink.head`, without a sink run per request. The rest of the
 * stream is tied to the caller's scope.
 */
export const pullFirst = <A, E, R>(
  self: Stream.Stream<A, E, R>
): Effect.Effect<Stream.Stream<A, E>, E, R | Scope.Scope> =>
  Effect.flatMap(Stream.toPull(self), (pull) =>
    pull.pipe(
      Effect.map((first) => Stream.concat(Stream.fromArray(first), Stream.fromPull(Effect.succeed(pull)))),
      Pull.catchDone(() => Effect.succeed(Stream.empty))
    ))
