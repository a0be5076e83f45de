/**
 * Stream stages that work on a stream's chunks (the arrays a pull yields), for the streamed-answer hot
 * path. Every operator in a chain costs a channel, its pulls and often a `suspend` per request, which
 * for a short streamed answer outweighs the work on its few chunks; one stage that maps and filters a
 * whole chunk replaces a `map` plus a `filter`, and a chunk stays one write to the client.
 */
import { Cause, Channel, Effect, Pull, Stream } from "effect"
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
 * `mapChunks`, then what `after` gives once `self` has ended: elements to emit as one last chunk, or a
 * stream to continue with. One stage instead of a `mapChunks` and a `concat`: a tail that is known
 * without an effect (nearly always) costs no second channel. `after` runs once, after the last `f`.
 */
export const mapChunksThen = <A, B, E, R, E2, R2>(
  self: Stream.Stream<A, E, R>,
  f: (chunk: NonEmptyReadonlyArray<A>) => ReadonlyArray<B>,
  after: () => ReadonlyArray<B> | Stream.Stream<B, E2, R2>
): Stream.Stream<B, E | E2, R | R2> =>
  Stream.fromChannel(Channel.fromTransform((upstream, scope) =>
    Effect.map(Channel.toTransform(Stream.toChannel(self))(upstream, scope), (pull) => {
      // set once `self` has ended: the rest comes from here
      let rest: Pull.Pull<NonEmptyReadonlyArray<B>, E2, void, R2> | undefined
      const loop = (chunk: NonEmptyReadonlyArray<A>): Pull.Pull<NonEmptyReadonlyArray<B>, E, void, R> => {
        const out = f(chunk)
        return out.length > 0 ? Effect.succeed(out as NonEmptyReadonlyArray<B>) : Effect.flatMap(pull, loop)
      }
      const ended = (): Pull.Pull<NonEmptyReadonlyArray<B>, E2, void, R2> => {
        const tail = after()
        if (!Stream.isStream(tail)) {
          rest = Cause.done()
          return tail.length > 0 ? Effect.succeed(tail as NonEmptyReadonlyArray<B>) : rest
        }
        return Effect.flatMap(Channel.toTransform(Stream.toChannel(tail))(upstream, scope), (next) => {
          rest = next
          return next
        })
      }
      const first = Pull.catchDone(Effect.flatMap(pull, loop), ended)
      return Effect.suspend(() => rest ?? first)
    })
  ))

/**
 * The first chunk of a stream, pulled now, and the whole stream (that chunk first); `None` for a stream
 * that ended empty. Like `Stream.peel` with `Sink.head`, without a sink run per request. The rest of the
 * stream is tied to the caller's scope. The stream needs no services, so its pulls run as they are:
 * `Stream.toPull` would wrap every later pull in a semaphore and a context swap.
 */
export const pullFirst = <A, E>(
  self: Stream.Stream<A, E>
): Effect.Effect<Stream.Stream<A, E>, E, Scope.Scope> =>
  Effect.flatMap(Effect.scope, (scope) =>
    Effect.flatMap(Channel.toPullScoped(Stream.toChannel(self), scope), (pull) =>
      pull.pipe(
        Effect.map((first) => {
          // the stream runs once: its first pull answers the chunk already here, later ones read on
          let held: NonEmptyReadonlyArray<A> | undefined = first
          return Stream.fromPull(Effect.succeed(Effect.suspend(() => {
            if (held === undefined) return pull
            const chunk = held
            held = undefined
            return Effect.succeed(chunk)
          })))
        }),
        Pull.catchDone(() => Effect.succeed(Stream.empty))
      )))
